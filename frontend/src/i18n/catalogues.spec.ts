import { en } from './locales/en';
import { LANGS, loadCatalogue } from './i18n';

type Tree = { [k: string]: string | Tree };
function flatten(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === 'string') out[prefix + k] = v;
    else Object.assign(out, flatten(v, `${prefix}${k}.`));
  }
  return out;
}
const placeholders = (s: string) => (s.match(/{{\s*\w+\s*}}/g) ?? []).sort();
// Brand names and words that are the same in the language (NFT, Kestrel, "Menu" in Portuguese…).
const SAME_ALLOWED = 0.15;

const english = flatten(en as unknown as Tree);

describe.each(LANGS.filter((l) => l !== 'en'))('catalogue %s', (lang) => {
  let strings: Record<string, string>;
  beforeAll(async () => {
    strings = flatten((await loadCatalogue(lang)) as unknown as Tree);
  });

  it('has exactly the English keys, none empty', () => {
    expect(Object.keys(strings).sort()).toEqual(Object.keys(english).sort());
    for (const [key, value] of Object.entries(strings)) expect([key, value.trim().length > 0]).toEqual([key, true]);
  });

  it('keeps every placeholder', () => {
    for (const key of Object.keys(english)) expect([key, placeholders(strings[key])]).toEqual([key, placeholders(english[key])]);
  });

  it('is translated, not left in English', () => {
    const same = Object.keys(english).filter((k) => strings[k] === english[k]);
    expect(same.length / Object.keys(english).length).toBeLessThan(SAME_ALLOWED);
  });
});

it('English has no empty string', () => {
  for (const value of Object.values(english)) expect(value.trim()).not.toBe('');
});

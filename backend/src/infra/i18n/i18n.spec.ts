import { en } from './locales/en';
import { catalogues, resolveLang, translate } from './i18n';
import { LANGS } from './catalogue';

describe('server message catalogues', () => {
  const keys = Object.keys(en);

  it.each(LANGS)('%s has every key, none empty, placeholders kept', (lang) => {
    const cat = catalogues[lang] as Record<string, string>;
    expect(Object.keys(cat).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      expect(cat[key].trim()).not.toBe('');
      const wanted = (en as Record<string, string>)[key].match(/\{\w+\}/g) ?? [];
      for (const ph of wanted) expect(cat[key]).toContain(ph);
    }
  });

  it.each(LANGS.filter((l) => l !== 'en'))('%s is translated, not left in English', (lang) => {
    const cat = catalogues[lang] as Record<string, string>;
    const same = keys.filter((k) => cat[k] === (en as Record<string, string>)[k]);
    expect(same.length).toBeLessThan(keys.length * 0.1);
  });

  it('fills placeholders and falls back to English for unknown languages', () => {
    expect(translate('xx', 'error.rate_limited', { seconds: 30 })).toBe('Too many attempts. Please try again in 30 seconds');
    expect(translate('zh', 'error.passwords_differ')).toBe('两次输入的密码不一致');
    expect(resolveLang('kr')).toBe('kr');
    expect(resolveLang(undefined)).toBe('en');
  });
});

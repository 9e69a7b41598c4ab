import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import i18next from 'i18next';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { loadCatalogue, setLanguage, type Lang } from '../../../../i18n/i18n';
import { useToastStore } from '../../../../stores/toast.store';
import { LanguagePage } from './language.page';

// The page waits for a language's catalogue itself: here each one arrives when the test says.
jest.mock('../../../../i18n/i18n', () => ({ ...jest.requireActual('../../../../i18n/i18n'), loadCatalogue: jest.fn() }));
const load = loadCatalogue as jest.MockedFunction<typeof loadCatalogue>;
const real = jest.requireActual('../../../../i18n/i18n') as { loadCatalogue: typeof loadCatalogue };

const PATH = '/pages/settings/language/language';
const radio = (name: string) => screen.getByRole('radio', { name });
const toasts = () => useToastStore.getState().toasts.map((t) => t.text);

beforeEach(() => {
  useToastStore.setState({ toasts: [] });
  load.mockReset();
});
afterEach(async () => {
  await setLanguage('en', false);
});

it('names each language in its own language tag', () => {
  renderAt(PATH, PATH, <LanguagePage titleKey="titles.language" />);
  expect(radio('日本語').getAttribute('lang')).toBe('ja');
  expect(radio('简体中文').getAttribute('lang')).toBe('zh-CN');
  expect(radio('English').getAttribute('lang')).toBe('en');
});

it('two quick taps: the last one wins even when the first catalogue arrives later, and the server is told once', async () => {
  let zhArrives!: () => void;
  load.mockImplementation((lang: Lang) =>
    lang === 'zh' ? new Promise((resolve) => (zhArrives = () => resolve(real.loadCatalogue('zh')))) : real.loadCatalogue(lang),
  );
  const calls = fakeApi({ 'set/lang': (body) => ok({ lang: body.get('lang') }, 'Language updated') });
  renderAt(PATH, PATH, <LanguagePage titleKey="titles.language" />);
  await userEvent.click(radio('简体中文'));
  await userEvent.click(radio('日本語'));
  await waitFor(() => expect(i18next.language).toBe('ja'));
  zhArrives();
  await waitFor(() => expect(toasts()).toEqual(['言語を変更しました']));
  expect(i18next.language).toBe('ja');
  expect(radio('日本語').getAttribute('aria-checked')).toBe('true');
  expect(radio('简体中文').getAttribute('aria-checked')).toBe('false');
  expect(calls.map((c) => c.body.get('lang'))).toEqual(['jp']);
});

it('a catalogue that cannot be loaded puts the tick back and says so', async () => {
  load.mockRejectedValue(new Error('chunk failed'));
  const calls = fakeApi({});
  renderAt(PATH, PATH, <LanguagePage titleKey="titles.language" />);
  await userEvent.click(radio('한국어'));
  await waitFor(() => expect(toasts()).toEqual(['Network error. Check your connection and try again.']));
  expect(radio('한국어').getAttribute('aria-checked')).toBe('false');
  expect(radio('English').getAttribute('aria-checked')).toBe('true');
  expect(i18next.language).toBe('en');
  expect(calls).toEqual([]);
});

import i18next from 'i18next';
import { formatTime } from '../components/format';
import { currentLang, localName, setLanguage, t } from './i18n';

describe('the app language', () => {
  afterEach(async () => {
    await setLanguage('en', false);
  });

  it('runs i18next on the BCP 47 tag (Intl.PluralRules knows it) while the app keeps its own codes', async () => {
    await setLanguage('jp', false);
    expect(i18next.language).toBe('ja');
    expect(currentLang()).toBe('jp');
    expect(t('lever.lotsOf', { count: 2 })).toBe('2 ロット');
    await setLanguage('py', false);
    expect(i18next.language).toBe('pt');
    expect([t('finance.days', { count: 1 }), t('finance.days', { count: 7 })]).toEqual(['1 dia', '7 dias']);
  });

  it('English reads naturally in the singular', () => {
    expect([t('news.total', { count: 1 }), t('news.total', { count: 3 })]).toEqual(['1 message', '3 messages']);
    expect([t('loan.days', { count: 1 }), t('loan.days', { count: 15 })]).toEqual(['1 day', '15 days']);
    expect([t('news.unreadLabel', { count: 1 }), t('news.unreadLabel', { count: 2 })]).toEqual(['Notices, 1 unread message', 'Notices, 2 unread messages']);
  });

  it("names countries and currencies, and writes times, in the app's language, not the device's", async () => {
    expect(localName('region', 'JP', 'Japan')).toBe('Japan');
    expect(localName('currency', 'EUR', 'Euro')).toBe('Euro');
    await setLanguage('jp', false);
    expect(localName('region', 'JP', 'Japan')).toBe('日本');
    expect(localName('currency', 'EUR', 'Euro')).toBe('ユーロ');
    expect(localName('region', 'not a code', 'Somewhere')).toBe('Somewhere');
    expect(formatTime('2026-12-01T08:05:09Z', 'date', { timeZone: 'UTC' })).toBe('2026/12/1');
    await setLanguage('py', false);
    expect(formatTime('2026-12-01T08:05:09Z', 'both', { timeZone: 'UTC' })).toBe('01/12/2026, 08:05:09');
  });
});

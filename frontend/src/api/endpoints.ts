import type { TickerData } from '@kestrel/contracts';
import type { Lang } from '../i18n/i18n';
import type { User } from '../stores/session.store';
import { get, post, type RequestOptions } from './client';

/** Typed calls for the screens of the app shell (field names: docs/api.md). */
export interface AppSettings {
  version: string;
  code: number;
  store_version: string;
  default_lang: string;
  languages: Array<{ code: string; name: string }>;
}
export interface AreaCode {
  iso: string;
  code: string;
  name: string;
}
export interface Session {
  token: string;
  user: User;
}
export type Channel = 'phone' | 'email';
export type CodePurpose = 'register' | 'forget' | 'fund_password' | 'address';
export interface QuoteGroup {
  quote: string;
  markets: TickerData[];
}

export const api = {
  settings: () => post<AppSettings>('settings/get', undefined, { quiet: true }),
  setLang: (lang: Lang, opts?: RequestOptions) => post<{ lang: Lang }>('set/lang', { lang }, opts),
  areaCodes: () => post<AreaCode[]>('area_code'),
  /** sms_send for a phone, sms_mail for an e-mail; without a target the code goes to the account's own contact. */
  sendCode: (channel: Channel, purpose: CodePurpose, target?: { phone?: string; area_code?: string; email?: string }) =>
    post<string>(channel === 'phone' ? 'sms_send' : 'sms_mail', { purpose, ...target }),
  register: (form: Record<string, string>) => post<Session>('user/register', form),
  login: (form: { account: string; password: string; area_code?: string }) => post<Session>('user/login', form),
  forget: (form: Record<string, string>) => post<string>('user/forget', form),
  center: () => get<User>('user/center'),
  updatePassword: (form: { old_password: string; password: string; re_password: string }) => post<string>('safe/update_password', form),
  setFundPassword: (form: { password: string; re_password: string; code: string; channel: 'sms' | 'email' }) => post<string>('user/e_pwd', form),
  logout: () => post<string>('user/logout', undefined, { quiet: true }),
  quotation: () => get<QuoteGroup[]>('currency/quotation_new', undefined, { quiet: true }),
};

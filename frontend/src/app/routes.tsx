import type { ComponentType, LazyExoticComponent } from 'react';
import { lazyPage } from './lazy-page';
import { PATHS, type RouteKey } from './paths';

type Screen = LazyExoticComponent<ComponentType<{ titleKey: string }>>;

// One chunk per screen this issue owns; every later-issue route shares the "not available yet" chunk.
const Home = lazyPage(() => import('../pages/index/index/home.page').then((m) => m.HomePage));
const Login = lazyPage(() => import('../pages/user/login/login/login.page').then((m) => m.LoginPage));
const Register = lazyPage(() => import('../pages/user/login/register/register.page').then((m) => m.RegisterPage));
const Choose = lazyPage(() => import('../pages/user/login/choose/choose.page').then((m) => m.ChoosePage));
const ForgetPassword = lazyPage(() => import('../pages/user/login/forgetPassword/forget-password.page').then((m) => m.ForgetPasswordPage));
const Settings = lazyPage(() => import('../pages/settings/index/settings.page').then((m) => m.SettingsPage));
const Language = lazyPage(() => import('../pages/settings/language/language/language.page').then((m) => m.LanguagePage));
const Account = lazyPage(() => import('../pages/settings/account/index/account.page').then((m) => m.AccountPage));
const Security = lazyPage(() => import('../pages/settings/security/index/security.page').then((m) => m.SecurityPage));
const ChangePassword = lazyPage(() => import('../pages/settings/security/changePassword/change-password.page').then((m) => m.ChangePasswordPage));
const ChangePayPassword = lazyPage(() => import('../pages/settings/security/changePayPassword/change-pay-password.page').then((m) => m.ChangePayPasswordPage));
const Trade = lazyPage(() => import('../pages/trade/index/trade.page').then((m) => m.TradePage));
const Kline = lazyPage(() => import('../pages/trade/kline/kline.page').then((m) => m.KlinePage));
const NotAvailable = lazyPage(() => import('../components/not-available.page').then((m) => m.NotAvailablePage));

const owned: Partial<Record<RouteKey, Screen>> = {
  home: Home,
  homeAlias: Home,
  login: Login,
  register: Register,
  choose: Choose,
  forgetPassword: ForgetPassword,
  settings: Settings,
  language: Language,
  account: Account,
  security: Security,
  changePassword: ChangePassword,
  changePayPassword: ChangePayPassword,
  trade: Trade,
  kline: Kline,
};

// Aliases share their original's title.
const titleOf: Partial<Record<RouteKey, string>> = { homeAlias: 'home', helpCenterAlt: 'helpCenter', helpChatAlt: 'helpChat', helpDetailAlt: 'helpDetail' };

export interface RouteDef {
  key: RouteKey;
  path: string;
  titleKey: string;
  Screen: Screen;
  available: boolean;
}

/** Every path of spec §2, each with its screen. */
export const ROUTES: RouteDef[] = (Object.keys(PATHS) as RouteKey[]).map((key) => ({
  key,
  path: PATHS[key],
  titleKey: `titles.${titleOf[key] ?? key}`,
  Screen: owned[key] ?? NotAvailable,
  available: key in owned,
}));

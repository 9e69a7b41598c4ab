import type { User } from './session.store';
import { KEPT_KEYS } from './storage';

// Each test loads the stores afresh, as a new launch would, from what localStorage holds then.
function load() {
  let mods!: { session: typeof import('./session.store'); theme: typeof import('./theme.store'); toast: typeof import('./toast.store') };
  jest.isolateModules(() => {
    mods = { session: require('./session.store'), theme: require('./theme.store'), toast: require('./toast.store') };
  });
  return mods;
}
function systemPrefersDark(dark: boolean) {
  window.matchMedia = ((q: string) => ({ matches: dark && q.includes('dark'), media: q, addEventListener() {}, removeEventListener() {} })) as unknown as typeof window.matchMedia;
}

describe('session store', () => {
  it('persists token and user under `token` and `user`, and a new launch reads them back', () => {
    const user = { id: 1, account: 'a@b.co', nickname: 'a' } as User;
    load().session.useSessionStore.getState().setSession('t1', user);
    expect(localStorage.getItem('token')).toBe('t1');
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(user);
    const again = load().session.useSessionStore;
    expect(again.getState()).toMatchObject({ token: 't1', user });
    again.getState().clear();
    expect(localStorage.getItem('token')).toBeNull();
    expect(load().session.useSessionStore.getState().token).toBeNull();
  });

  it('ignores a corrupt stored user', () => {
    localStorage.setItem('user', '{oops');
    expect(load().session.useSessionStore.getState().user).toBeNull();
  });
});

describe('theme store', () => {
  it('follows the system on first launch, then the stored choice', () => {
    systemPrefersDark(true);
    const first = load().theme.useThemeStore;
    expect(first.getState().chosen).toBeNull();
    expect(first.getState().system).toBe('dark');
    first.getState().setTheme('light');
    expect(localStorage.getItem('theme')).toBe('light');
    const next = load().theme.useThemeStore.getState();
    expect(next.chosen ?? next.system).toBe('light');
  });

  it('stores the up colour (green-up by default) and applies both to <html>', () => {
    systemPrefersDark(false);
    const { theme } = load();
    expect(theme.useThemeStore.getState().upColor).toBe('green-up');
    theme.useThemeStore.getState().setUpColor('red-up');
    expect(load().theme.useThemeStore.getState().upColor).toBe('red-up');
    theme.applyTheme('dark', 'red-up');
    expect(document.documentElement.dataset).toMatchObject({ theme: 'dark', up: 'red-up' });
  });
});

describe('toast store', () => {
  it('shows at most three, drops duplicates and clears after 2.5 s', () => {
    jest.useFakeTimers();
    const { toast } = load();
    for (const text of ['a', 'b', 'b', 'c', 'd']) toast.toast(text);
    expect(toast.useToastStore.getState().toasts.map((t) => t.text)).toEqual(['b', 'c', 'd']);
    jest.advanceTimersByTime(2500);
    expect(toast.useToastStore.getState().toasts).toEqual([]);
    jest.useRealTimers();
  });
});

describe('clear cache', () => {
  it("keeps a visitor's favourites (their only copy) and the hide-small-balances choice", () => {
    expect(KEPT_KEYS).toEqual(expect.arrayContaining(['favorites', 'hideSmall', 'token', 'lang']));
  });
});

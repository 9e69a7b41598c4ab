import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { useSessionStore } from '../../../../stores/session.store';
import { backTarget, LoginPage } from './login.page';

const PATH = '/pages/user/login/login';

beforeEach(() => useSessionStore.getState().clear());

it('logs in and returns to the encoded backpage', async () => {
  const calls = fakeApi({ area_code: ok([]), 'user/login': ok({ token: 'tok', user: { id: 1, account: 'a@b.co' } }) });
  renderAt(PATH, `${PATH}?backpage=${encodeURIComponent('/pages/assets/index')}&backtype=2`, <LoginPage titleKey="titles.login" />);
  await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
  expect(screen.getByText('Enter your phone number or e-mail')).toBeTruthy();
  expect(screen.getByText('Password is required')).toBeTruthy();
  await userEvent.type(screen.getByLabelText('E-mail'), 'a@b.co');
  await userEvent.type(screen.getByLabelText('Password'), 'secret1');
  await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/pages/assets/index'));
  expect(Object.fromEntries(calls.find((c) => c.path === 'user/login')!.body)).toEqual({ account: 'a@b.co', password: 'secret1' });
  expect(useSessionStore.getState().token).toBe('tok');
});

// Regression: logging in over a session still held left its token working for days, out of the user's reach.
it('logging in while logged in ends the session held before on the server', async () => {
  useSessionStore.getState().setSession('tok-old', { id: 1, account: 'a@b.co' } as never);
  const calls = fakeApi({ area_code: ok([]), 'user/login': ok({ token: 'tok-new', user: { id: 2, account: 'c@d.co' } }), 'user/logout': ok(null) });
  renderAt(PATH, PATH, <LoginPage titleKey="titles.login" />);
  await userEvent.type(screen.getByLabelText('E-mail'), 'c@d.co');
  await userEvent.type(screen.getByLabelText('Password'), 'secret1');
  await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
  await waitFor(() => expect(calls.find((c) => c.path === 'user/logout')?.headers.Authorization).toBe('tok-old'));
  expect(useSessionStore.getState().token).toBe('tok-new');
  expect(localStorage.getItem('pendingLogout')).toBeNull();
});

it('backpage only leads inside the app', () => {
  const target = (q: string) => backTarget(new URLSearchParams(q));
  expect(target('')).toBe('/');
  expect(target(`backpage=${encodeURIComponent('/pages/option/detail?id=2')}&backtype=1`)).toBe('/pages/option/detail?id=2');
  expect(target(`backpage=${encodeURIComponent('https://evil.example')}`)).toBe('/');
  expect(target(`backpage=${encodeURIComponent('//evil.example')}`)).toBe('/');
  expect(target('backpage=%E0%A4%A')).toBe('/');
});

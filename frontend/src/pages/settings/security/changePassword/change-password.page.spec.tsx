import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { useSessionStore, type User } from '../../../../stores/session.store';
import { useToastStore } from '../../../../stores/toast.store';
import { ChangePasswordPage } from './change-password.page';

const PATH = '/pages/settings/security/changePassword';

it('checks the three fields, then changes the password and says so', async () => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
  useToastStore.setState({ toasts: [] });
  const calls = fakeApi({ 'safe/update_password': ok(null, 'Password changed') });
  renderAt(PATH, PATH, <ChangePasswordPage titleKey="titles.changePassword" />);
  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  expect(screen.getByText('Current password is required')).toBeTruthy();
  expect(screen.getByText('New password is required')).toBeTruthy();
  await userEvent.type(screen.getByLabelText('Current password'), 'old-pass');
  await userEvent.type(screen.getByLabelText('New password'), 'new-pass1');
  await userEvent.type(screen.getByLabelText('Confirm new password'), 'new-pass2');
  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  expect(screen.getByText('The two passwords do not match')).toBeTruthy();
  await userEvent.clear(screen.getByLabelText('Confirm new password'));
  await userEvent.type(screen.getByLabelText('Confirm new password'), 'new-pass1');
  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/pages/settings/security/index'));
  expect(Object.fromEntries(calls[0].body)).toEqual({ old_password: 'old-pass', password: 'new-pass1', re_password: 'new-pass1' });
  expect(calls[0].headers.Authorization).toBe('tok');
  expect(useToastStore.getState().toasts.map((t) => t.text)).toEqual(['Password changed']);
});

it('sends a visitor to login with backpage', () => {
  useSessionStore.getState().clear();
  renderAt(PATH, PATH, <ChangePasswordPage titleKey="titles.changePassword" />);
  expect(screen.getByTestId('location').textContent).toBe(`/pages/user/login/login?backpage=${encodeURIComponent(PATH)}&backtype=1`);
});

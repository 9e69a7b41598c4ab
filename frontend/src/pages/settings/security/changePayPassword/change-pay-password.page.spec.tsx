import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { useSessionStore, type User } from '../../../../stores/session.store';
import { useToastStore } from '../../../../stores/toast.store';
import { ChangePayPasswordPage } from './change-pay-password.page';

const PATH = '/pages/settings/security/changePayPassword';
const ana = { id: 7, phone: null, area_code: null, email: 'ana@example.com', has_fund_password: false } as unknown as User;

it('checks 6 digits, the confirmation and the code, then sets the fund password with a code sent by e-mail', async () => {
  useSessionStore.getState().setSession('tok', ana);
  useToastStore.setState({ toasts: [] });
  const calls = fakeApi({ 'user/center': ok(ana), sms_mail: ok(null, 'Verification code sent'), 'user/e_pwd': ok(null, 'Fund password saved') });
  renderAt(PATH, PATH, <ChangePayPasswordPage titleKey="titles.changePayPassword" />);
  expect(screen.getByText('The code will be sent to an***@example.com')).toBeTruthy();

  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  expect(screen.getByText('The fund password must be exactly 6 digits')).toBeTruthy();
  expect(screen.getByText('Please confirm the password')).toBeTruthy();
  expect(screen.getByText('Verification code is required')).toBeTruthy();

  await userEvent.type(screen.getByLabelText('Fund password (6 digits)'), '135790');
  await userEvent.type(screen.getByLabelText('Confirm fund password'), '135791');
  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  expect(screen.getByText('The two passwords do not match')).toBeTruthy();

  await userEvent.click(screen.getByRole('button', { name: 'Send code' }));
  await userEvent.clear(screen.getByLabelText('Confirm fund password'));
  await userEvent.type(screen.getByLabelText('Confirm fund password'), '135790');
  await userEvent.type(screen.getByLabelText('Verification code'), '246810');
  await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/pages/settings/security/index'));
  const sent = calls.find((c) => c.path === 'sms_mail')!;
  expect(Object.fromEntries(sent.body)).toMatchObject({ purpose: 'fund_password' });
  const saved = calls.find((c) => c.path === 'user/e_pwd')!;
  expect(Object.fromEntries(saved.body)).toEqual({ password: '135790', re_password: '135790', code: '246810', channel: 'email' });
  expect(useSessionStore.getState().user?.has_fund_password).toBe(true);
  expect(useToastStore.getState().toasts.map((t) => t.text)).toContain('Fund password saved');
});

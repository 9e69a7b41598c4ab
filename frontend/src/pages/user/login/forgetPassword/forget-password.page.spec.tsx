import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { useToastStore } from '../../../../stores/toast.store';
import { ForgetPasswordPage } from './forget-password.page';

const PATH = '/pages/user/login/forgetPassword';

it('checks every field with the spec messages, then resets by e-mail code and returns to login', async () => {
  useToastStore.setState({ toasts: [] });
  const calls = fakeApi({ area_code: ok([]), sms_mail: ok(null, 'Verification code sent'), 'user/forget': ok(null, 'Password reset. Please log in') });
  renderAt(PATH, PATH, <ForgetPasswordPage titleKey="titles.forgetPassword" />);

  await userEvent.click(screen.getByRole('button', { name: 'Reset password' }));
  expect(screen.getByText('E-mail is required')).toBeTruthy();
  expect(screen.getByText('Verification code is required')).toBeTruthy();
  expect(screen.getByText('Password is required')).toBeTruthy();
  expect(screen.getByText('Please confirm the password')).toBeTruthy();

  await userEvent.type(screen.getByLabelText('E-mail'), 'not-an-email');
  await userEvent.type(screen.getByLabelText('New password'), '12345');
  await userEvent.type(screen.getByLabelText('Confirm password'), '123456');
  await userEvent.click(screen.getByRole('button', { name: 'Reset password' }));
  expect(screen.getByText('Please enter a valid e-mail address')).toBeTruthy();
  expect(screen.getByText('Password must be at least 6 characters')).toBeTruthy();
  expect(screen.getByText('The two passwords do not match')).toBeTruthy();

  await userEvent.clear(screen.getByLabelText('E-mail'));
  await userEvent.type(screen.getByLabelText('E-mail'), 'ana@example.com');
  await userEvent.click(screen.getByRole('button', { name: 'Send code' }));
  await userEvent.type(screen.getByLabelText('Verification code'), '246810');
  await userEvent.clear(screen.getByLabelText('New password'));
  await userEvent.type(screen.getByLabelText('New password'), 'new-secret');
  await userEvent.clear(screen.getByLabelText('Confirm password'));
  await userEvent.type(screen.getByLabelText('Confirm password'), 'new-secret');
  await userEvent.click(screen.getByRole('button', { name: 'Reset password' }));
  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/pages/user/login/login'));
  expect(Object.fromEntries(calls.find((c) => c.path === 'sms_mail')!.body)).toMatchObject({ email: 'ana@example.com', purpose: 'forget' });
  expect(Object.fromEntries(calls.find((c) => c.path === 'user/forget')!.body)).toMatchObject({
    email: 'ana@example.com',
    code: '246810',
    password: 'new-secret',
    re_password: 'new-secret',
  });
  expect(useToastStore.getState().toasts.map((t) => t.text)).toContain('Password reset. Please log in');
});

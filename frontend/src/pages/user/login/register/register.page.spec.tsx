import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../../test/render';
import { useSessionStore } from '../../../../stores/session.store';
import { useToastStore } from '../../../../stores/toast.store';
import { RegisterPage } from './register.page';

const PATH = '/pages/user/login/register';
const user = { id: 3, account: 'new@kestrel.test', nickname: 'new' };

beforeEach(() => {
  useSessionStore.getState().clear();
  useToastStore.setState({ toasts: [] });
});

it('shows each spec §5 message and sends nothing while a rule is broken', async () => {
  const calls = fakeApi({ area_code: ok([]) });
  renderAt(PATH, `${PATH}?type=email`, <RegisterPage titleKey="titles.register" />);
  await userEvent.click(screen.getByRole('button', { name: 'Sign up' }));
  expect(screen.getByText('E-mail is required')).toBeTruthy();
  expect(screen.getByText('Verification code is required')).toBeTruthy();
  expect(screen.getByText('Password is required')).toBeTruthy();
  expect(screen.getByText('Please confirm the password')).toBeTruthy();
  expect(screen.getByText('You have not agreed to the user agreement')).toBeTruthy();

  await userEvent.type(screen.getByLabelText('E-mail'), 'not-an-email');
  await userEvent.type(screen.getByLabelText('Password'), '12345');
  await userEvent.type(screen.getByLabelText('Confirm password'), '123456');
  await userEvent.click(screen.getByRole('button', { name: 'Sign up' }));
  expect(screen.getByText('Please enter a valid e-mail address')).toBeTruthy();
  expect(screen.getByText('Password must be at least 6 characters')).toBeTruthy();
  expect(screen.getByText('The two passwords do not match')).toBeTruthy();
  expect(screen.getByLabelText('E-mail').getAttribute('aria-invalid')).toBe('true');
  expect(calls.filter((c) => c.path === 'user/register')).toEqual([]);
});

it('takes the invite code from ?code=, sends the code with a countdown, registers and logs in', async () => {
  const calls = fakeApi({
    area_code: ok([]),
    sms_mail: ok(null, 'Verification code sent'),
    'user/register': ok({ token: 'tok-new', user }, 'Registration successful'),
  });
  renderAt(PATH, `${PATH}?type=email&code=INV42`, <RegisterPage titleKey="titles.register" />);
  expect((screen.getByLabelText('Invite code (optional)') as HTMLInputElement).value).toBe('INV42');

  await userEvent.type(screen.getByLabelText('E-mail'), 'new@kestrel.test');
  await userEvent.click(screen.getByRole('button', { name: 'Send code' }));
  await screen.findByRole('button', { name: /Resend in \d+ s/ });
  expect(calls.find((c) => c.path === 'sms_mail')!.body.toString()).toBe('purpose=register&email=new%40kestrel.test');
  expect(useToastStore.getState().toasts.map((t) => t.text)).toContain('Verification code sent');

  await userEvent.type(screen.getByLabelText('Verification code'), '123456');
  await userEvent.type(screen.getByLabelText('Password'), 'secret1');
  await userEvent.type(screen.getByLabelText('Confirm password'), 'secret1');
  await userEvent.click(screen.getByRole('checkbox'));
  await userEvent.click(screen.getByRole('button', { name: 'Sign up' }));

  await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/'));
  const reg = calls.find((c) => c.path === 'user/register')!;
  expect(Object.fromEntries(reg.body)).toEqual({ type: 'email', email: 'new@kestrel.test', code: '123456', password: 'secret1', re_password: 'secret1', agreement: '1', invite_code: 'INV42' });
  expect(useSessionStore.getState().token).toBe('tok-new');
});

it('phone registration sends the calling code and the number', async () => {
  const calls = fakeApi({ area_code: ok([{ iso: 'GB', code: '44', name: 'United Kingdom' }, { iso: 'US', code: '1', name: 'United States' }]), sms_send: ok(null, 'Verification code sent') });
  renderAt(PATH, `${PATH}?type=phone`, <RegisterPage titleKey="titles.register" />);
  await screen.findByRole('option', { name: '+44 United Kingdom' });
  await userEvent.selectOptions(screen.getByLabelText('Country code'), '44');
  await userEvent.type(screen.getByLabelText('Phone number'), '7700 900123');
  await userEvent.click(screen.getByRole('button', { name: 'Send code' }));
  await waitFor(() => expect(calls.some((c) => c.path === 'sms_send')).toBe(true));
  expect(Object.fromEntries(calls.find((c) => c.path === 'sms_send')!.body)).toEqual({ purpose: 'register', phone: '7700900123', area_code: '44' });
});

it('a server refusal is toasted and the user stays on the form', async () => {
  fakeApi({ area_code: ok([]), 'user/register': { type: 'error', code: 1102, message: 'The verification code is wrong or has expired', data: null } });
  renderAt(PATH, `${PATH}?type=email`, <RegisterPage titleKey="titles.register" />);
  await userEvent.type(screen.getByLabelText('E-mail'), 'new@kestrel.test');
  await userEvent.type(screen.getByLabelText('Verification code'), '000000');
  await userEvent.type(screen.getByLabelText('Password'), 'secret1');
  await userEvent.type(screen.getByLabelText('Confirm password'), 'secret1');
  await userEvent.click(screen.getByRole('checkbox'));
  await userEvent.click(screen.getByRole('button', { name: 'Sign up' }));
  await waitFor(() => expect(useToastStore.getState().toasts.map((t) => t.text)).toEqual(['The verification code is wrong or has expired']));
  expect(screen.getByTestId('location').textContent).toBe(`${PATH}?type=email`);
  expect(useSessionStore.getState().token).toBeNull();
});

import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, ok, renderAt } from '../../../../test/render';
import { useSessionStore, type User } from '../../../stores/session.store';
import { VerificationPage } from './verification.page';

const PATH = '/pages/verification/index';

it('a failed load says so and tries again, instead of loading for ever', async () => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
  let fail = true;
  fakeApi({
    'user/real_name': () =>
      fail
        ? { type: 'error', code: 9000, message: 'Server busy', data: null }
        : ok({ basic: 'verified', basic_reason: null, advanced: 'unverified', advanced_reason: null }),
  });
  renderAt(PATH, PATH, <VerificationPage titleKey="titles.verification" />);
  await screen.findByText('This could not be loaded. Check your connection and try again.');
  fail = false;
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  expect((await screen.findByTestId('basic-state')).textContent).toBeTruthy();
  expect(screen.queryByTestId('load-failed')).toBeNull();
});

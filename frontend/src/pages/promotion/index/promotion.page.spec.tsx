import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { promotionApi, type InviteInfo } from '../../../api/promotion';
import { PATHS } from '../../../app/paths';
import { PromotionPage } from './promotion.page';

afterEach(() => jest.restoreAllMocks());

/** The page's other reads answered (empty lists, no poster yet); the test spies on the one it is about. */
function otherReads() {
  const empty = { items: [], total: 0, page: 1, limit: 20 };
  jest.spyOn(promotionApi, 'myInvite').mockResolvedValue({} as never);
  jest.spyOn(promotionApi, 'ranking').mockResolvedValue({ currency: 'USDT', items: [] });
  jest.spyOn(promotionApi, 'records').mockResolvedValue(empty as never);
  jest.spyOn(promotionApi, 'invitees').mockResolvedValue(empty as never);
  jest.spyOn(promotionApi, 'poster').mockReturnValue(new Promise(() => undefined));
}

// Regression: an invite page that did not load said so with nothing to press.
it('invite information that did not load offers a retry', async () => {
  otherReads();
  const info = jest
    .spyOn(promotionApi, 'invite')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockReturnValueOnce(new Promise<InviteInfo>(() => undefined));
  renderAt(PATHS.promotion, PATHS.promotion, <PromotionPage titleKey="titles.promotion" />);
  await userEvent.click(await screen.findByRole('button', { name: 'Try again' }));
  expect(info).toHaveBeenCalledTimes(2);
  expect(screen.queryByTestId('load-failed')).toBeNull();
});

// Regression: a ranking that did not load showed as an empty ranking ("No data"), with nothing to press.
it('a ranking that did not load offers a retry, not an empty ranking; the copy buttons say what they copy', async () => {
  const info: InviteInfo = {
    invite_code: 'K7Q2',
    link: 'https://kestrel.example/#/pages/user/login/register?invite_code=K7Q2',
    partner: false,
    auth_code: null,
    ratio: '0.2',
    promoted_count: 0,
    total_rebate: '0',
    pending_rebate: '0',
    rebate_currency: 'USDT',
    rebates: [],
  };
  otherReads();
  jest.spyOn(promotionApi, 'invite').mockResolvedValue(info);
  const ranking = jest
    .spyOn(promotionApi, 'ranking')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockResolvedValueOnce({ currency: 'USDT', items: [{ rank: 1, account: 'a***@b.co', rebate: '12.5', invited: 3 }] });
  renderAt(PATHS.promotion, PATHS.promotion, <PromotionPage titleKey="titles.promotion" />);
  await userEvent.click(await screen.findByRole('button', { name: 'Try again' }));
  expect((await screen.findByTestId('ranking')).textContent).toContain('12.5 USDT');
  expect(ranking).toHaveBeenCalledTimes(2);
  expect(screen.getByRole('button', { name: 'Copy Invite code' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Copy Invite link' })).toBeTruthy();
});

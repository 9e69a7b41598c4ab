import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { promotionApi, type InviteInfo } from '../../../api/promotion';
import { PATHS } from '../../../app/paths';
import { PromotionPage } from './promotion.page';

afterEach(() => jest.restoreAllMocks());

// Regression: an invite page that did not load said so with nothing to press.
it('invite information that did not load offers a retry', async () => {
  const empty = { items: [], total: 0, page: 1, limit: 20 };
  jest.spyOn(promotionApi, 'myInvite').mockResolvedValue({} as never);
  jest.spyOn(promotionApi, 'ranking').mockResolvedValue({ currency: 'USDT', items: [] });
  jest.spyOn(promotionApi, 'records').mockResolvedValue(empty as never);
  jest.spyOn(promotionApi, 'invitees').mockResolvedValue(empty as never);
  jest.spyOn(promotionApi, 'poster').mockReturnValue(new Promise(() => undefined));
  const info = jest
    .spyOn(promotionApi, 'invite')
    .mockRejectedValueOnce(new ApiError('Network error', 0))
    .mockReturnValueOnce(new Promise<InviteInfo>(() => undefined));
  renderAt(PATHS.promotion, PATHS.promotion, <PromotionPage titleKey="titles.promotion" />);
  await userEvent.click(await screen.findByRole('button', { name: 'Try again' }));
  expect(info).toHaveBeenCalledTimes(2);
  expect(screen.queryByTestId('load-failed')).toBeNull();
});

import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { ApiError } from '../../../api/client';
import { helpApi, type Feedback } from '../../../api/promotion';
import { HelpCenterPage } from './center.page';

afterEach(() => jest.restoreAllMocks());

describe('help centre: feedback', () => {
  it('a retry after an answer that never came sends the same client id; edited feedback gets a new one', async () => {
    jest.spyOn(helpApi, 'customerUrl').mockResolvedValue({ type: 'chat', url: '' });
    jest.spyOn(helpApi, 'faq').mockResolvedValue({ items: [], total: 0, page: 1, limit: 50 });
    const send = jest
      .spyOn(helpApi, 'feedback')
      .mockRejectedValueOnce(new ApiError('Network error', 0))
      .mockResolvedValue({ id: '1' } as Feedback);
    renderAt('/help', '/help', <HelpCenterPage titleKey="help.title" />);
    const content = screen.getByLabelText('Description');
    await userEvent.type(content, 'The chart does not load');
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(2));
    const ids = send.mock.calls.map((c) => c[0].client_id);
    expect(ids[0]).toMatch(/^[\w-]{1,64}$/);
    expect(ids[1]).toBe(ids[0]);
    await userEvent.type(content, 'The orders page is slow');
    await userEvent.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(3));
    expect(send.mock.calls[2][0]).toMatchObject({ content: 'The orders page is slow' });
    expect(send.mock.calls[2][0].client_id).not.toBe(ids[0]);
  });
});

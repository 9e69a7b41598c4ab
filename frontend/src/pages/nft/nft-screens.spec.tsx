import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../test/render';
import { ApiError } from '../../api/client';
import { nftApi, type NftCollection, type NftItem, type NftList } from '../../api/nft';
import { walletApi, type UserCurrency } from '../../api/wallet';
import { PATHS } from '../../app/paths';
import { useSessionStore, type User } from '../../stores/session.store';
import { NftDetailPage } from './detail/nft-detail.page';
import { NftPage } from './index/nft.page';

afterEach(() => {
  jest.restoreAllMocks();
  useSessionStore.getState().clear();
});

const offline = () => new ApiError('Network error', 0);
const collection: NftCollection = {
  id: 1,
  name: 'Dawn',
  description: '',
  currency_id: 2,
  currency: 'ETH',
  fee_rate: '0.02',
  items: 60,
  on_sale: 60,
  floor_price: '1',
  cover: null,
};
const item = (id: number): NftItem => ({
  id,
  collection_id: 1,
  collection: 'Dawn',
  token_no: id,
  name: `Dawn Kestrel ${id}`,
  description: '',
  image: '/api/nft/image/1',
  attributes: {},
  owner: { type: 'house', name: 'Kestrel', is_me: false },
  state: 'listed',
  on_sale: true,
  price: '1.5',
  primary: true,
  currency: 'ETH',
  fee_rate: '0.02',
  last_price: null,
  minted_at: '2026-12-01T08:00:00Z',
});
/** `nft/list` over `total` items (ids 1…total), `limit` at a time. */
const market =
  (total: number) =>
  async (f: { page?: number; limit?: number } = {}): Promise<NftList> => {
    const page = f.page ?? 1;
    const limit = f.limit ?? 50;
    const ids = Array.from({ length: total }, (_, i) => i + 1).slice((page - 1) * limit, page * limit);
    return { collections: [collection], items: ids.map(item), total, page, limit, item: null };
  };

// Regression: the grid showed the first 50 items and no way to the rest.
it('the market grid reads the next page with "Load more" (past the first 50)', async () => {
  const list = jest.spyOn(nftApi, 'list').mockImplementation(market(60));
  renderAt(PATHS.nft, PATHS.nft, <NftPage titleKey="titles.nft" />);
  await waitFor(() => expect(screen.getAllByTestId('nft-item')).toHaveLength(50));
  await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
  await waitFor(() => expect(screen.getAllByTestId('nft-item')).toHaveLength(60));
  expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  expect(list.mock.calls.map((c) => c[0]?.page)).toEqual([1, 2]);
  expect(screen.getByRole('button', { name: 'Dawn' })).toBeTruthy();
});

it('the market grid that failed to load offers a retry (not "No data")', async () => {
  jest.spyOn(nftApi, 'list').mockRejectedValueOnce(offline()).mockImplementation(market(3));
  renderAt(PATHS.nft, PATHS.nft, <NftPage titleKey="titles.nft" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No data')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await waitFor(() => expect(screen.getAllByTestId('nft-item')).toHaveLength(3));
});

it('a link to a collection that does not exist shows every collection', async () => {
  const list = jest
    .spyOn(nftApi, 'list')
    .mockImplementation(async (f = {}) => (f.collection_id === 99 ? Promise.reject(new ApiError('Collection not found', 2800)) : market(3)(f)));
  renderAt(PATHS.nft, `${PATHS.nft}?collection=99`, <NftPage titleKey="titles.nft" />);
  await waitFor(() => expect(screen.getAllByTestId('nft-item')).toHaveLength(3));
  expect(screen.getByTestId('location').textContent).toBe(PATHS.nft);
  expect(list.mock.calls.map((c) => c[0]?.collection_id)).toEqual([99, undefined]);
});

// Regression: an item that did not load (no answer) said "not found", with nothing to press.
it('an item that did not load offers a retry; one that does not exist says so', async () => {
  const read = jest
    .spyOn(nftApi, 'item')
    .mockRejectedValueOnce(offline())
    .mockResolvedValueOnce({ ...item(7), provenance: [] } as never);
  const view = renderAt(PATHS.nftDetail, `${PATHS.nftDetail}?id=7`, <NftDetailPage titleKey="titles.nftDetail" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('This NFT could not be found.')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByTestId('nft-detail');
  view.unmount();
  read.mockRejectedValueOnce(new ApiError('NFT not found', 2801));
  renderAt(PATHS.nftDetail, `${PATHS.nftDetail}?id=8`, <NftDetailPage titleKey="titles.nftDetail" />);
  await screen.findByText('This NFT could not be found.');
  expect(screen.queryByTestId('load-failed')).toBeNull();
});

// Regression: the balance shown was the first of USDT (currency 3) or the item's coin, so USDT's for an item priced in ETH.
it("the buyer's available balance is that of the coin the item is priced in", async () => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
  const coin = (currency_id: number, symbol: string, available: string) => ({ currency_id, symbol, available, frozen: '0' }) as UserCurrency;
  jest.spyOn(walletApi, 'currencies').mockResolvedValue([coin(3, 'USDT', '5000'), coin(2, 'ETH', '0.25')]);
  jest.spyOn(nftApi, 'item').mockResolvedValue({ ...item(7), provenance: [] } as never);
  renderAt(PATHS.nftDetail, `${PATHS.nftDetail}?id=7`, <NftDetailPage titleKey="titles.nftDetail" />);
  await waitFor(() => expect(screen.getByTestId('nft-available').textContent).toContain('0.25'));
  expect(screen.getByTestId('nft-available').textContent).toContain('ETH');
});

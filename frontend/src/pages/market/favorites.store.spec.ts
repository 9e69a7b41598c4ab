import { marketsApi } from '../../api/markets';
import { useFavoritesStore } from './favorites.store';

type List = { symbols: string[] };
/** A request whose answer the test releases when it chooses. */
function deferred() {
  let resolve!: (v: List) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<List>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const flush = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  jest.restoreAllMocks();
  useFavoritesStore.setState({ owner: null, symbols: [] });
});

describe("a logged-in user's favourites", () => {
  it('keeps the newest answer when two stars are tapped quickly and the answers come back out of order', async () => {
    jest.spyOn(marketsApi, 'favorites').mockResolvedValue({ symbols: [] });
    useFavoritesStore.getState().load('tok');
    await flush();
    const a = deferred();
    const b = deferred();
    jest.spyOn(marketsApi, 'addFavorite').mockImplementation((s) => (s === 'BTC/USDT' ? a.promise : b.promise));
    const first = useFavoritesStore.getState().toggle('BTC/USDT');
    const second = useFavoritesStore.getState().toggle('ETH/USDT');
    // Shown at once.
    expect(useFavoritesStore.getState().symbols).toEqual(['BTC/USDT', 'ETH/USDT']);
    b.resolve({ symbols: ['BTC/USDT', 'ETH/USDT'] });
    await second;
    a.resolve({ symbols: ['BTC/USDT'] });
    await first;
    expect(useFavoritesStore.getState().symbols).toEqual(['BTC/USDT', 'ETH/USDT']);
  });

  it('puts the list back when the server refuses the newest change', async () => {
    jest.spyOn(marketsApi, 'favorites').mockResolvedValue({ symbols: ['BTC/USDT'] });
    useFavoritesStore.getState().load('tok');
    await flush();
    jest.spyOn(marketsApi, 'addFavorite').mockRejectedValue(new Error('refused'));
    await useFavoritesStore.getState().toggle('ETH/USDT');
    expect(useFavoritesStore.getState().symbols).toEqual(['BTC/USDT']);
  });

  it('asks again after a failed first load instead of showing an empty list for good', async () => {
    const list = jest
      .spyOn(marketsApi, 'favorites')
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce({ symbols: ['BTC/USDT'] });
    useFavoritesStore.getState().load('tok');
    await flush();
    expect(useFavoritesStore.getState().owner).toBeNull();
    useFavoritesStore.getState().load('tok');
    await flush();
    expect(list).toHaveBeenCalledTimes(2);
    expect(useFavoritesStore.getState()).toMatchObject({ owner: 'tok', symbols: ['BTC/USDT'] });
  });
});

import { get, post } from './client';
import type { Page } from './trading';

/** The NFT market (`nft/*`): docs/api.md "NFT market". */
export interface NftOwner {
  type: 'house' | 'user';
  /** "Kestrel" for the house, else the owner's nickname masked. */
  name: string;
  is_me: boolean;
}

export interface NftCollection {
  id: number;
  name: string;
  description: string;
  currency_id: number;
  currency: string;
  fee_rate: string;
  items: number;
  on_sale: number;
  floor_price: string | null;
  cover: string | null;
}

export type NftState = 'held' | 'listed' | 'reserved';

export interface NftItem {
  id: number;
  collection_id: number;
  collection: string;
  token_no: number;
  name: string;
  description: string;
  image: string;
  attributes: Record<string, string>;
  owner: NftOwner;
  state: NftState;
  on_sale: boolean;
  price: string | null;
  primary: boolean;
  currency: string;
  fee_rate: string;
  last_price: string | null;
  minted_at: string;
}

export interface NftProvenance {
  event: 'mint' | 'sale';
  price: string | null;
  from: { type: 'house' | 'user'; name: string } | null;
  to: { type: 'house' | 'user'; name: string };
  at: string;
}

export interface NftList extends Page<NftItem> {
  collections: NftCollection[];
  item: (NftItem & { provenance: NftProvenance[] }) | null;
}

export type NftOrderType = 'purchase' | 'sale' | 'listing';

export interface NftOrder {
  id: string;
  kind: NftOrderType;
  item_id: number;
  name: string;
  token_no: number;
  collection_id: number;
  image: string | null;
  price: string;
  /** Purchases and sales. */
  primary?: boolean;
  currency?: string;
  fee?: string;
  /** What the buyer paid or the seller received. */
  amount?: string;
  status: 'processing' | 'completed' | 'failed' | 'active' | 'sold' | 'withdrawn';
  created_at: string;
  settled_at?: string | null;
  closed_at?: string | null;
}

export interface NftFilter {
  collection_id?: number;
  on_sale?: boolean;
  mine?: boolean;
  page?: number;
  limit?: number;
}

/** The image URL under the app's relative API base (images are public, so an <img> can load them). */
export const nftImageSrc = (url: string | null | undefined) => (url ? (url.startsWith('/api/') ? `.${url}` : url) : '');

/** How many items a page of the market's grid (`nft/list`) holds. */
export const NFT_ITEMS_PAGE = 50;
/** How many of the user's NFT records a page of `nft/order/list` holds. */
export const NFT_ORDERS_PAGE = 50;

export const nftApi = {
  list: (f: NftFilter = {}) =>
    get<NftList>('nft/list', {
      collection_id: f.collection_id,
      on_sale: f.on_sale ? 1 : undefined,
      mine: f.mine ? 1 : undefined,
      page: f.page ?? 1,
      limit: f.limit ?? NFT_ITEMS_PAGE,
    }),
  item: (id: number) => get<NftList>('nft/list', { id }).then((r) => r.item!),
  buy: (p: { item_id: number; price: string; client_id: string }) =>
    post<{ sale: { id: string; price: string; fee: string; status: string }; item: NftItem }>('nft/buy', p),
  listForSale: (itemId: number, price: string) => post<NftItem>('nft/sell', { item_id: itemId, action: 'list', price }),
  withdraw: (itemId: number) => post<NftItem>('nft/sell', { item_id: itemId, action: 'withdraw' }),
  orders: (type?: NftOrderType, page = 1) => get<Page<NftOrder>>('nft/order/list', { type, page, limit: NFT_ORDERS_PAGE }),
};

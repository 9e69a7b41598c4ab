import { moneyString } from '../../infra/money';
import { HOUSE } from './nft-item.entity';
import type { NftSale } from './nft-sale.entity';

/** A sale as its buyer sees it in the nft/buy answer. */
export function saleView(s: NftSale) {
  return {
    id: s.id,
    item_id: s.itemId,
    primary: s.sellerId === HOUSE,
    price: moneyString(s.price),
    fee: moneyString(s.fee),
    status: s.status === 'pending' ? 'processing' : s.status === 'completed' ? 'completed' : 'failed',
    created_at: new Date(s.createdAt).toISOString(),
    settled_at: s.settledAt ? new Date(s.settledAt).toISOString() : null,
  };
}

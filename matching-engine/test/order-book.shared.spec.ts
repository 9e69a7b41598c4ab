import { FastBook, ReferenceBook } from '../src';
import type { BookSnapshot, Command, EngineEvent, OrderBookFactory, PlaceCommand, RejectCode } from '../src';
import { BOOKS, Harness, ofType, strip } from './harness';

// One suite, run against the naive reference and the fast book: both must pass every case.
describe.each(BOOKS)('%s', (_name: string, factory: OrderBookFactory) => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness(factory);
  });

  describe('resting and matching', () => {
    it('rests a limit order that does not cross and reports it', () => {
      expect(strip(h.limit(1, 7, 'buy', 100, 10))).toEqual([
        { type: 'accepted', id: 1, owner: 7, side: 'buy', kind: 'limit', price: 100, qty: 10, quoteBudget: 0 },
        { type: 'done', id: 1, owner: 7, status: 'resting', filledQty: 0, remainingQty: 10, quoteLeft: 0 },
      ]);
      expect(h.book.bestBid()).toBe(100);
      expect(h.book.bestAsk()).toBeUndefined();
      expect(h.book.order(1)).toEqual({ id: 1, owner: 7, side: 'buy', price: 100, qty: 10, filled: 0, stp: 'none', postOnly: false });
      expect(h.book.orderCount).toBe(1);
    });

    it('trades at the maker price, not the taker limit', () => {
      h.limit(1, 7, 'sell', 100, 10);
      const ev = h.limit(2, 8, 'buy', 105, 4);
      expect(strip(ev)).toEqual([
        { type: 'accepted', id: 2, owner: 8, side: 'buy', kind: 'limit', price: 105, qty: 4, quoteBudget: 0 },
        { type: 'trade', tradeId: 1, makerId: 1, makerOwner: 7, takerId: 2, takerOwner: 8, takerSide: 'buy', price: 100, qty: 4, makerRemaining: 6 },
        { type: 'done', id: 2, owner: 8, status: 'filled', filledQty: 4, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.order(1)).toMatchObject({ qty: 6, filled: 4 });
      expect(h.book.order(2)).toBeUndefined();
    });

    it('a sell taker also trades at the (higher) bid price', () => {
      h.limit(1, 7, 'buy', 100, 10);
      const trades = ofType(h.limit(2, 8, 'sell', 95, 3), 'trade');
      expect(trades).toHaveLength(1);
      expect(trades[0]).toMatchObject({ price: 100, qty: 3, takerSide: 'sell' });
    });

    it('a partial fill leaves the right remainder resting at the taker price', () => {
      h.limit(1, 7, 'sell', 100, 10);
      const ev = h.limit(2, 8, 'buy', 101, 15);
      expect(ofType(ev, 'trade').map((t) => [t.makerId, t.qty, t.makerRemaining])).toEqual([[1, 10, 0]]);
      expect(ofType(ev, 'done')[0]).toMatchObject({ status: 'resting', filledQty: 10, remainingQty: 5 });
      expect(h.book.order(1)).toBeUndefined();
      expect(h.book.order(2)).toMatchObject({ price: 101, qty: 5, filled: 10 });
      expect(h.book.bestAsk()).toBeUndefined();
      expect(h.book.bestBid()).toBe(101);
      expect(h.book.depth(5)).toEqual({ bids: [{ price: 101, qty: 5, orders: 1 }], asks: [] });
    });

    it('fills FIFO within one price level', () => {
      h.limit(1, 1, 'sell', 100, 10);
      h.limit(2, 2, 'sell', 100, 10);
      h.limit(3, 3, 'sell', 100, 10);
      const trades = ofType(h.limit(9, 9, 'buy', 100, 25), 'trade');
      expect(trades.map((t) => [t.makerId, t.qty, t.makerRemaining])).toEqual([
        [1, 10, 0],
        [2, 10, 0],
        [3, 5, 5],
      ]);
      expect(trades.map((t) => t.tradeId)).toEqual([1, 2, 3]);
    });

    it('takes better prices first, each at its own price', () => {
      h.limit(1, 1, 'sell', 102, 1);
      h.limit(2, 1, 'sell', 100, 1);
      h.limit(3, 1, 'sell', 101, 1);
      h.limit(4, 1, 'sell', 103, 1);
      const trades = ofType(h.limit(9, 2, 'buy', 102, 5), 'trade');
      expect(trades.map((t) => [t.makerId, t.price])).toEqual([
        [2, 100],
        [3, 101],
        [1, 102],
      ]);
      expect(h.book.bestBid()).toBe(102);
      expect(h.book.bestAsk()).toBe(103);
    });

    it('aggregates depth per level, best first, limited to N levels', () => {
      h.limit(1, 1, 'buy', 99, 1);
      h.limit(2, 1, 'buy', 99, 2);
      h.limit(3, 1, 'buy', 98, 4);
      h.limit(4, 1, 'buy', 97, 8);
      h.limit(5, 1, 'sell', 101, 3);
      h.limit(6, 1, 'sell', 105, 1);
      expect(h.book.depth(2)).toEqual({
        bids: [
          { price: 99, qty: 3, orders: 2 },
          { price: 98, qty: 4, orders: 1 },
        ],
        asks: [
          { price: 101, qty: 3, orders: 1 },
          { price: 105, qty: 1, orders: 1 },
        ],
      });
    });
  });

  describe('cancel', () => {
    it('removes the order, its emptied level and its id', () => {
      h.limit(1, 7, 'buy', 100, 10);
      h.limit(2, 7, 'buy', 99, 10);
      expect(strip(h.cancel(1))).toEqual([{ type: 'cancelled', id: 1, owner: 7, reason: 'user', qty: 10 }]);
      expect(h.book.order(1)).toBeUndefined();
      expect(h.book.bestBid()).toBe(99);
      expect(h.book.depth(10).bids).toEqual([{ price: 99, qty: 10, orders: 1 }]);
      expect(h.book.orderCount).toBe(1);
      // The id is really gone: a new order may reuse it, a second cancel is unknown.
      expect(strip(h.cancel(1))).toEqual([{ type: 'rejected', id: 1, command: 'cancel', code: 'UNKNOWN_ORDER' }]);
      expect(h.lastCode).toBe('UNKNOWN_ORDER');
      h.limit(1, 7, 'buy', 98, 1);
      expect(h.lastCode).toBe('OK');
    });

    it('keeps a level that still has orders, with the right totals', () => {
      h.limit(1, 7, 'sell', 100, 10);
      h.limit(2, 8, 'sell', 100, 5);
      h.limit(3, 9, 'sell', 100, 1);
      h.cancel(2);
      expect(h.book.depth(1).asks).toEqual([{ price: 100, qty: 11, orders: 2 }]);
      const trades = ofType(h.limit(4, 1, 'buy', 100, 11), 'trade');
      expect(trades.map((t) => t.makerId)).toEqual([1, 3]);
      expect(h.book.orderCount).toBe(0);
    });

    it('rejects cancel of a filled order', () => {
      h.limit(1, 7, 'sell', 100, 10);
      h.limit(2, 8, 'buy', 100, 10);
      expect(ofType(h.cancel(1), 'rejected')[0]).toMatchObject({ code: 'UNKNOWN_ORDER' });
      expect(ofType(h.cancel(2), 'rejected')[0]).toMatchObject({ code: 'UNKNOWN_ORDER' });
    });
  });

  describe('amend', () => {
    beforeEach(() => {
      h.limit(1, 1, 'sell', 100, 10);
      h.limit(2, 2, 'sell', 100, 10);
    });

    it('quantity down keeps priority', () => {
      expect(strip(h.amend(1, { qty: 4 }))).toEqual([
        { type: 'amended', id: 1, owner: 1, oldPrice: 100, oldQty: 10, price: 100, qty: 4, priorityKept: true },
        { type: 'done', id: 1, owner: 1, status: 'resting', filledQty: 0, remainingQty: 4, quoteLeft: 0 },
      ]);
      expect(h.book.depth(1).asks).toEqual([{ price: 100, qty: 14, orders: 2 }]);
      const trades = ofType(h.limit(3, 3, 'buy', 100, 6), 'trade');
      expect(trades.map((t) => [t.makerId, t.qty])).toEqual([
        [1, 4],
        [2, 2],
      ]);
    });

    it('quantity up loses priority', () => {
      expect(ofType(h.amend(1, { qty: 12 }), 'amended')[0]).toMatchObject({ priorityKept: false, qty: 12 });
      const trades = ofType(h.limit(3, 3, 'buy', 100, 15), 'trade');
      expect(trades.map((t) => [t.makerId, t.qty])).toEqual([
        [2, 10],
        [1, 5],
      ]);
      expect(h.book.order(1)).toMatchObject({ qty: 7, filled: 5 });
    });

    it('a price change loses priority even when it comes back', () => {
      h.amend(1, { price: 101 });
      h.amend(1, { price: 100 });
      const trades = ofType(h.limit(3, 3, 'buy', 100, 10), 'trade');
      expect(trades.map((t) => t.makerId)).toEqual([2]);
    });

    it('a price change that crosses trades as a taker and rests the rest', () => {
      h.limit(5, 5, 'buy', 98, 30);
      const ev = h.amend(5, { price: 100 });
      expect(strip(ev)).toEqual([
        { type: 'amended', id: 5, owner: 5, oldPrice: 98, oldQty: 30, price: 100, qty: 30, priorityKept: false },
        { type: 'trade', tradeId: 1, makerId: 1, makerOwner: 1, takerId: 5, takerOwner: 5, takerSide: 'buy', price: 100, qty: 10, makerRemaining: 0 },
        { type: 'trade', tradeId: 2, makerId: 2, makerOwner: 2, takerId: 5, takerOwner: 5, takerSide: 'buy', price: 100, qty: 10, makerRemaining: 0 },
        { type: 'done', id: 5, owner: 5, status: 'resting', filledQty: 20, remainingQty: 10, quoteLeft: 0 },
      ]);
      expect(h.book.depth(5)).toEqual({ bids: [{ price: 100, qty: 10, orders: 1 }], asks: [] });
    });

    it('an amend that fills the order completely removes it', () => {
      h.limit(5, 5, 'buy', 98, 5);
      expect(ofType(h.amend(5, { price: 100 }), 'done')[0]).toMatchObject({ status: 'filled', filledQty: 5 });
      expect(h.book.order(5)).toBeUndefined();
      expect(ofType(h.amend(5, { qty: 1 }), 'rejected')[0]).toMatchObject({ code: 'UNKNOWN_ORDER' });
    });

    it('moves to a new level, dropping the emptied one', () => {
      h.limit(5, 5, 'buy', 90, 5);
      h.amend(5, { price: 95, qty: 3 });
      expect(h.book.depth(5).bids).toEqual([{ price: 95, qty: 3, orders: 1 }]);
      expect(h.book.order(5)).toMatchObject({ price: 95, qty: 3 });
    });

    it('rejects unknown orders and empty or invalid changes', () => {
      expect(ofType(h.amend(99, { qty: 1 }), 'rejected')[0]).toMatchObject({ command: 'amend', code: 'UNKNOWN_ORDER' });
      expect(ofType(h.amend(1, {}), 'rejected')[0]).toMatchObject({ code: 'INVALID_AMEND' });
      expect(ofType(h.amend(1, { qty: 0 }), 'rejected')[0]).toMatchObject({ code: 'INVALID_QTY' });
      expect(ofType(h.amend(1, { price: -1 }), 'rejected')[0]).toMatchObject({ code: 'INVALID_PRICE' });
      expect(ofType(h.amend(1, { price: 1.5 }), 'rejected')[0]).toMatchObject({ code: 'INVALID_PRICE' });
      expect(h.book.order(1)).toMatchObject({ price: 100, qty: 10 });
    });
  });

  describe('time in force', () => {
    it('IOC trades what it can and never rests', () => {
      h.limit(1, 1, 'sell', 100, 10);
      const ev = h.limit(2, 2, 'buy', 100, 15, { tif: 'IOC' });
      expect(ofType(ev, 'trade')).toHaveLength(1);
      expect(strip(ev.slice(-2))).toEqual([
        { type: 'cancelled', id: 2, owner: 2, reason: 'ioc', qty: 5 },
        { type: 'done', id: 2, owner: 2, status: 'cancelled', filledQty: 10, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.bestBid()).toBeUndefined();
      expect(h.book.order(2)).toBeUndefined();
    });

    it('IOC that cannot trade is cancelled whole', () => {
      h.limit(1, 1, 'sell', 101, 10);
      const ev = h.limit(2, 2, 'buy', 100, 5, { tif: 'IOC' });
      expect(ev.map((e) => e.type)).toEqual(['accepted', 'cancelled', 'done']);
      expect(h.book.orderCount).toBe(1);
    });

    it('FOK fills whole across levels', () => {
      h.limit(1, 1, 'sell', 100, 5);
      h.limit(2, 1, 'sell', 101, 5);
      const ev = h.limit(3, 2, 'buy', 101, 8, { tif: 'FOK' });
      expect(ofType(ev, 'trade').map((t) => t.qty)).toEqual([5, 3]);
      expect(ofType(ev, 'done')[0]).toMatchObject({ status: 'filled', filledQty: 8 });
    });

    it('FOK that cannot fill whole does nothing at all', () => {
      h.limit(1, 1, 'sell', 100, 5);
      h.limit(2, 1, 'sell', 102, 5);
      const before = h.book.snapshot();
      const ev = h.limit(3, 2, 'buy', 101, 8, { tif: 'FOK' });
      expect(strip(ev)).toEqual([
        { type: 'accepted', id: 3, owner: 2, side: 'buy', kind: 'limit', price: 101, qty: 8, quoteBudget: 0 },
        { type: 'cancelled', id: 3, owner: 2, reason: 'fok', qty: 8 },
        { type: 'done', id: 3, owner: 2, status: 'cancelled', filledQty: 0, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.snapshot()).toEqual(before);
    });

    it('FOK market sell respects the worst price', () => {
      h.limit(1, 1, 'buy', 100, 5);
      h.limit(2, 1, 'buy', 95, 5);
      expect(ofType(h.market(3, 2, 'sell', 8, { tif: 'FOK', worstPrice: 96 }), 'trade')).toHaveLength(0);
      expect(ofType(h.market(4, 2, 'sell', 8, { tif: 'FOK', worstPrice: 95 }), 'trade')).toHaveLength(2);
    });
  });

  describe('post-only', () => {
    it('is rejected, with nothing traded, if it would cross', () => {
      h.limit(1, 1, 'sell', 100, 5);
      expect(strip(h.limit(2, 2, 'buy', 100, 5, { postOnly: true }))).toEqual([{ type: 'rejected', id: 2, command: 'place', code: 'POST_ONLY_WOULD_CROSS' }]);
      expect(h.book.order(1)).toMatchObject({ qty: 5 });
      expect(h.book.order(2)).toBeUndefined();
    });

    it('rests when it does not cross', () => {
      h.limit(1, 1, 'sell', 100, 5);
      h.limit(2, 2, 'buy', 99, 5, { postOnly: true });
      expect(h.book.order(2)).toMatchObject({ postOnly: true, price: 99 });
    });

    it('an amend of a post-only order into the spread is rejected and changes nothing', () => {
      h.limit(1, 1, 'sell', 100, 5);
      h.limit(2, 2, 'buy', 99, 5, { postOnly: true });
      expect(ofType(h.amend(2, { price: 100 }), 'rejected')[0]).toMatchObject({ code: 'POST_ONLY_WOULD_CROSS' });
      expect(h.book.order(2)).toMatchObject({ price: 99, qty: 5 });
    });

    it('only makes sense for a GTC limit order', () => {
      expect(ofType(h.limit(2, 2, 'buy', 99, 5, { postOnly: true, tif: 'IOC' }), 'rejected')[0]).toMatchObject({ code: 'INVALID_POST_ONLY' });
      expect(ofType(h.market(3, 2, 'buy', 5, { postOnly: true }), 'rejected')[0]).toMatchObject({ code: 'INVALID_POST_ONLY' });
    });
  });

  describe('self-trade prevention', () => {
    // Asks: #1 by owner 8, #2 by owner 7 (the taker's own), #3 by owner 8 one tick up.
    beforeEach(() => {
      h.limit(1, 8, 'sell', 100, 5);
      h.limit(2, 7, 'sell', 100, 5);
      h.limit(3, 8, 'sell', 101, 5);
    });

    it('none: trades with itself', () => {
      const ev = h.limit(9, 7, 'buy', 101, 15, { stp: 'none' });
      expect(ofType(ev, 'trade').map((t) => [t.makerId, t.makerOwner, t.takerOwner])).toEqual([
        [1, 8, 7],
        [2, 7, 7],
        [3, 8, 7],
      ]);
    });

    it('cancel-taker: trades up to its own order, then cancels the rest of the taker', () => {
      const ev = h.limit(9, 7, 'buy', 101, 15, { stp: 'cancel-taker' });
      expect(strip(ev.slice(1))).toEqual([
        { type: 'trade', tradeId: 1, makerId: 1, makerOwner: 8, takerId: 9, takerOwner: 7, takerSide: 'buy', price: 100, qty: 5, makerRemaining: 0 },
        { type: 'cancelled', id: 9, owner: 7, reason: 'stp', qty: 10 },
        { type: 'done', id: 9, owner: 7, status: 'cancelled', filledQty: 5, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.order(2)).toMatchObject({ qty: 5 });
      expect(h.book.order(3)).toMatchObject({ qty: 5 });
      expect(h.book.order(9)).toBeUndefined();
    });

    it('cancel-maker: cancels its own resting order and keeps matching', () => {
      const ev = h.limit(9, 7, 'buy', 101, 15, { stp: 'cancel-maker' });
      expect(strip(ev.slice(1))).toEqual([
        { type: 'trade', tradeId: 1, makerId: 1, makerOwner: 8, takerId: 9, takerOwner: 7, takerSide: 'buy', price: 100, qty: 5, makerRemaining: 0 },
        { type: 'cancelled', id: 2, owner: 7, reason: 'stp', qty: 5 },
        { type: 'trade', tradeId: 2, makerId: 3, makerOwner: 8, takerId: 9, takerOwner: 7, takerSide: 'buy', price: 101, qty: 5, makerRemaining: 0 },
        { type: 'done', id: 9, owner: 7, status: 'resting', filledQty: 10, remainingQty: 5, quoteLeft: 0 },
      ]);
      expect(h.book.order(2)).toBeUndefined();
      expect(h.book.depth(5)).toEqual({ bids: [{ price: 101, qty: 5, orders: 1 }], asks: [] });
    });

    it('cancel-both: cancels the maker and the rest of the taker', () => {
      const ev = h.limit(9, 7, 'buy', 101, 15, { stp: 'cancel-both' });
      expect(strip(ev.slice(2))).toEqual([
        { type: 'cancelled', id: 2, owner: 7, reason: 'stp', qty: 5 },
        { type: 'cancelled', id: 9, owner: 7, reason: 'stp', qty: 10 },
        { type: 'done', id: 9, owner: 7, status: 'cancelled', filledQty: 5, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.order(2)).toBeUndefined();
      expect(h.book.order(3)).toMatchObject({ qty: 5 });
    });

    it('applies to amends that cross, with the amended order as taker', () => {
      h.limit(9, 7, 'buy', 99, 5, { stp: 'cancel-taker' });
      h.limit(10, 8, 'buy', 98, 1);
      h.cancel(1);
      const ev = h.amend(9, { price: 100 });
      expect(ofType(ev, 'trade')).toHaveLength(0);
      expect(ofType(ev, 'cancelled')[0]).toMatchObject({ id: 9, reason: 'stp', qty: 5 });
      expect(h.book.order(9)).toBeUndefined();
      expect(h.book.order(2)).toMatchObject({ qty: 5 });
    });

    it('FOK counts only liquidity it may trade with', () => {
      // cancel-taker would stop at #2 after 5 lots: not fillable, and #2 survives.
      const killed = h.limit(9, 7, 'buy', 101, 10, { tif: 'FOK', stp: 'cancel-taker' });
      expect(ofType(killed, 'cancelled')[0]).toMatchObject({ id: 9, reason: 'fok' });
      expect(h.book.orderCount).toBe(3);
      // cancel-maker skips #2: 10 lots from #1 and #3 fill it, #2 is cancelled on the way.
      const filled = h.limit(10, 7, 'buy', 101, 10, { tif: 'FOK', stp: 'cancel-maker' });
      expect(ofType(filled, 'trade').map((t) => t.makerId)).toEqual([1, 3]);
      expect(ofType(filled, 'cancelled').map((c) => c.id)).toEqual([2]);
      expect(h.book.orderCount).toBe(0);
    });
  });

  describe('market orders', () => {
    it('against an empty book: accepted, then cancelled whole', () => {
      expect(strip(h.market(1, 1, 'buy', 5))).toEqual([
        { type: 'accepted', id: 1, owner: 1, side: 'buy', kind: 'market', price: 0, qty: 5, quoteBudget: 0 },
        { type: 'cancelled', id: 1, owner: 1, reason: 'ioc', qty: 5 },
        { type: 'done', id: 1, owner: 1, status: 'cancelled', filledQty: 0, remainingQty: 0, quoteLeft: 0 },
      ]);
      expect(h.book.orderCount).toBe(0);
    });

    it('against a thin book: sweeps it and cancels the rest', () => {
      h.limit(1, 1, 'buy', 100, 2);
      h.limit(2, 1, 'buy', 90, 2);
      const ev = h.market(3, 2, 'sell', 10);
      expect(ofType(ev, 'trade').map((t) => [t.price, t.qty])).toEqual([
        [100, 2],
        [90, 2],
      ]);
      expect(ofType(ev, 'cancelled')[0]).toMatchObject({ reason: 'ioc', qty: 6 });
      expect(h.book.bestBid()).toBeUndefined();
    });

    it('a market sell stops at its worst price', () => {
      h.limit(1, 1, 'buy', 100, 2);
      h.limit(2, 1, 'buy', 95, 2);
      h.limit(3, 1, 'buy', 94, 2);
      const ev = h.market(4, 2, 'sell', 10, { worstPrice: 95 });
      expect(ofType(ev, 'trade').map((t) => t.price)).toEqual([100, 95]);
      expect(ofType(ev, 'accepted')[0]).toMatchObject({ price: 95 });
      expect(h.book.bestBid()).toBe(94);
    });

    it('rejects a market GTC and a price on a market order', () => {
      expect(ofType(h.market(1, 1, 'buy', 5, { tif: 'GTC' }), 'rejected')[0]).toMatchObject({ code: 'INVALID_TIF' });
      expect(ofType(h.market(1, 1, 'buy', 5, { price: 100 }), 'rejected')[0]).toMatchObject({ code: 'INVALID_PRICE' });
    });
  });

  describe('quote-amount market buy', () => {
    beforeEach(() => {
      h.limit(1, 1, 'sell', 100, 5);
      h.limit(2, 1, 'sell', 110, 5);
      h.limit(3, 1, 'sell', 120, 5);
    });

    it('spends at most the budget, in whole lots at maker prices', () => {
      const ev = h.quoteBuy(9, 2, 750);
      expect(strip(ev)).toEqual([
        { type: 'accepted', id: 9, owner: 2, side: 'buy', kind: 'market', price: 0, qty: 0, quoteBudget: 750 },
        { type: 'trade', tradeId: 1, makerId: 1, makerOwner: 1, takerId: 9, takerOwner: 2, takerSide: 'buy', price: 100, qty: 5, makerRemaining: 0 },
        { type: 'trade', tradeId: 2, makerId: 2, makerOwner: 1, takerId: 9, takerOwner: 2, takerSide: 'buy', price: 110, qty: 2, makerRemaining: 3 },
        // 750 - 500 - 220 = 30 left, less than one lot at 110: the budget is used up.
        { type: 'done', id: 9, owner: 2, status: 'filled', filledQty: 7, remainingQty: 0, quoteLeft: 30 },
      ]);
    });

    it('stops at the worst price and reports the unspent budget', () => {
      const ev = h.quoteBuy(9, 2, 5_000, { worstPrice: 110 });
      expect(ofType(ev, 'trade').map((t) => [t.price, t.qty])).toEqual([
        [100, 5],
        [110, 5],
      ]);
      expect(strip(ev.slice(-2))).toEqual([
        { type: 'cancelled', id: 9, owner: 2, reason: 'ioc', qty: 0 },
        { type: 'done', id: 9, owner: 2, status: 'cancelled', filledQty: 10, remainingQty: 0, quoteLeft: 5_000 - 500 - 550 },
      ]);
      expect(h.book.bestAsk()).toBe(120);
    });

    it('a budget below one lot buys nothing', () => {
      const ev = h.quoteBuy(9, 2, 99);
      expect(ofType(ev, 'trade')).toHaveLength(0);
      expect(ofType(ev, 'done')[0]).toMatchObject({ status: 'cancelled', filledQty: 0, quoteLeft: 99 });
    });

    it('applies self-trade prevention', () => {
      const ev = h.quoteBuy(9, 1, 1_000, { stp: 'cancel-taker' });
      expect(ofType(ev, 'trade')).toHaveLength(0);
      expect(ofType(ev, 'cancelled')[0]).toMatchObject({ id: 9, reason: 'stp' });
      expect(ofType(ev, 'done')[0]).toMatchObject({ quoteLeft: 1_000 });
    });

    it('is a buy-only, non-FOK market feature', () => {
      const sell: PlaceCommand = { type: 'place', id: 9, owner: 2, side: 'sell', kind: 'market', quoteBudget: 100, tif: 'IOC', stp: 'none', ts: 1 };
      h.run(sell);
      expect(h.lastCode).toBe('INVALID_QUOTE_BUDGET');
      expect(ofType(h.quoteBuy(9, 2, 100, { tif: 'FOK' }), 'rejected')[0]).toMatchObject({ code: 'INVALID_TIF' });
      expect(ofType(h.quoteBuy(9, 2, 100, { qty: 3 }), 'rejected')[0]).toMatchObject({ code: 'INVALID_QTY' });
    });
  });

  describe('validation', () => {
    const base: PlaceCommand = { type: 'place', id: 50, owner: 1, side: 'buy', kind: 'limit', price: 100, qty: 1, tif: 'GTC', stp: 'none', ts: 1 };
    const cases: [string, Record<string, unknown>, RejectCode][] = [
      ['zero id', { id: 0 }, 'INVALID_ID'],
      ['fractional id', { id: 1.5 }, 'INVALID_ID'],
      ['negative owner', { owner: -1 }, 'INVALID_OWNER'],
      ['bad side', { side: 'long' }, 'INVALID_SIDE'],
      ['bad kind', { kind: 'stop' }, 'INVALID_KIND'],
      ['bad tif', { tif: 'GTD' }, 'INVALID_TIF'],
      ['bad stp', { stp: 'both' }, 'INVALID_STP'],
      ['zero price', { price: 0 }, 'INVALID_PRICE'],
      ['missing price', { price: undefined }, 'INVALID_PRICE'],
      ['float price', { price: 100.5 }, 'INVALID_PRICE'],
      ['unsafe price', { price: 2 ** 53 }, 'INVALID_PRICE'],
      ['negative qty', { qty: -1 }, 'INVALID_QTY'],
      ['string qty', { qty: '1' }, 'INVALID_QTY'],
      ['budget on limit', { quoteBudget: 10 }, 'INVALID_QUOTE_BUDGET'],
      ['worst price on limit', { worstPrice: 10 }, 'INVALID_WORST_PRICE'],
      ['market worst price', { kind: 'market', price: undefined, tif: 'IOC', worstPrice: 0 }, 'INVALID_WORST_PRICE'],
      ['non-boolean post-only', { postOnly: 'yes' }, 'INVALID_POST_ONLY'],
    ];
    it.each(cases)('rejects %s', (_label, patch, code) => {
      h.limit(1, 1, 'sell', 200, 1);
      const before = h.book.snapshot();
      const cmd = { ...base, ...patch } as unknown as Command;
      expect(strip(h.run(cmd))).toEqual([{ type: 'rejected', id: cmd.id, command: 'place', code }]);
      expect(h.lastCode).toBe(code);
      expect(h.book.snapshot()).toEqual(before);
    });

    it('rejects a duplicate live id', () => {
      h.limit(1, 1, 'buy', 90, 1);
      expect(ofType(h.limit(1, 2, 'sell', 200, 1), 'rejected')[0]).toMatchObject({ code: 'DUPLICATE_ID' });
      expect(h.book.orderCount).toBe(1);
    });

    it('rejects an unknown command type', () => {
      expect(h.book.process({ type: 'replace', id: 1, ts: 5 } as unknown as Command)).toBe('INVALID_COMMAND');
      expect(h.sink.drain()).toEqual([{ type: 'rejected', ts: 5, id: 1, command: 'replace', code: 'INVALID_COMMAND' }]);
    });
  });

  describe('snapshot and restore', () => {
    const tail: Command[] = [
      { type: 'place', id: 20, owner: 3, side: 'buy', kind: 'limit', price: 101, qty: 12, tif: 'GTC', stp: 'none', ts: 900 },
      { type: 'amend', id: 2, qty: 1, ts: 901 },
      { type: 'place', id: 21, owner: 4, side: 'sell', kind: 'market', qty: 30, tif: 'IOC', stp: 'cancel-maker', ts: 902 },
      { type: 'cancel', id: 5, ts: 903 },
      { type: 'place', id: 22, owner: 4, side: 'buy', kind: 'market', quoteBudget: 10_000, tif: 'IOC', stp: 'none', ts: 904 },
    ];

    function seed(x: Harness): void {
      x.limit(1, 1, 'sell', 100, 5);
      x.limit(2, 2, 'sell', 100, 5);
      x.limit(3, 1, 'sell', 103, 5, { stp: 'cancel-both', postOnly: true });
      x.limit(4, 3, 'buy', 98, 7);
      x.limit(5, 4, 'buy', 97, 7);
      x.limit(6, 4, 'buy', 98, 2, { stp: 'cancel-taker' });
      x.limit(7, 9, 'buy', 100, 3); // trades: tradeSeq moves on
    }

    function replay(target: Harness, cmds: Command[]): EngineEvent[] {
      for (const c of cmds) target.book.process(c);
      return target.sink.drain();
    }

    it.each(BOOKS)('restores into %s and produces the same events afterwards', (_to, targetFactory) => {
      seed(h);
      h.sink.drain();
      const snap = JSON.parse(JSON.stringify(h.book.snapshot())) as BookSnapshot;
      const restored = new Harness(targetFactory);
      restored.book.restore(snap);
      expect(restored.book.snapshot()).toEqual(snap);
      expect(restored.book.tradeSeq).toBe(1);
      expect(restored.book.depth(10)).toEqual(h.book.depth(10));
      expect(restored.book.order(3)).toEqual(h.book.order(3));
      const expected = replay(h, tail);
      expect(replay(restored, tail)).toEqual(expected);
      expect(ofType(expected, 'trade')[0].tradeId).toBe(2);
      expect(restored.book.snapshot()).toEqual(h.book.snapshot());
    });

    it('restore replaces any previous state', () => {
      seed(h);
      const empty = new Harness(factory).book.snapshot();
      h.book.restore(empty);
      expect(h.book.orderCount).toBe(0);
      expect(h.book.bestAsk()).toBeUndefined();
      expect(h.book.snapshot()).toEqual(empty);
    });

    it('throws on a malformed snapshot instead of guessing', () => {
      const crossed: BookSnapshot = {
        version: 1,
        tradeSeq: 0,
        bids: [{ id: 1, owner: 1, price: 101, qty: 1, filled: 0, stp: 'none', postOnly: false }],
        asks: [{ id: 2, owner: 1, price: 100, qty: 1, filled: 0, stp: 'none', postOnly: false }],
      };
      expect(() => h.book.restore(crossed)).toThrow(/crossed/);
      const unsorted: BookSnapshot = { ...crossed, bids: [], asks: [crossed.asks[0], { ...crossed.asks[0], id: 3, price: 99 }] };
      expect(() => h.book.restore(unsorted)).toThrow(/priority/);
      expect(() => h.book.restore({ ...crossed, version: 2 } as unknown as BookSnapshot)).toThrow(/version/);
    });
  });
});

describe('cross-implementation', () => {
  it('both books are interchangeable behind OrderBook', () => {
    const a = new Harness((s) => new ReferenceBook(s));
    const b = new Harness((s) => new FastBook(s));
    for (const x of [a, b]) {
      x.limit(1, 1, 'sell', 100, 5);
      x.limit(2, 2, 'buy', 100, 3);
    }
    expect(a.book.snapshot()).toEqual(b.book.snapshot());
  });
});

import type { Command } from '../src';

/**
 * The same command arrays, translated once (outside timing) into calls on npm
 * nodejs-order-book 10.x: limit / market / cancel / modify, string ids as it expects.
 * Known semantic differences, none of which changes the amount of work much:
 * its modify always re-queues (ours keeps priority on a quantity decrease), and it has no
 * quote-budget market buy (the workloads do not use one).
 */
interface NobResponse {
  err: unknown;
}

export interface NobBook {
  limit(o: { id: string; side: 'buy' | 'sell'; size: number; price: number; timeInForce?: 'GTC' | 'IOC' | 'FOK'; postOnly?: boolean }): NobResponse;
  market(o: { side: 'buy' | 'sell'; size: number }): NobResponse;
  cancel(id: string): unknown;
  modify(id: string, update: { price?: number; size?: number }): NobResponse;
  orders: Record<string, unknown>;
}

// Its package.json points "types" at a missing file, so load it untyped and describe the part we use.
const nob = require('nodejs-order-book') as { OrderBook: new () => NobBook };

export function newNobBook(): NobBook {
  return new nob.OrderBook();
}

export const OP_LIMIT = 0;
export const OP_MARKET = 1;
export const OP_CANCEL = 2;
export const OP_MODIFY = 3;

/** Parallel arrays: an op code and its prebuilt argument(s) per command. */
export interface NobProgram {
  ops: Uint8Array;
  args: unknown[];
  ids: string[];
}

export function toNob(commands: Command[]): NobProgram {
  const n = commands.length;
  const ops = new Uint8Array(n);
  const args: unknown[] = new Array(n);
  const ids: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = commands[i];
    ids[i] = String(c.id);
    if (c.type === 'place') {
      if (c.kind === 'limit') {
        ops[i] = OP_LIMIT;
        args[i] = { id: ids[i], side: c.side, size: c.qty as number, price: c.price as number, timeInForce: c.tif };
      } else {
        if (c.quoteBudget !== undefined || c.worstPrice !== undefined) throw new Error('nodejs-order-book has no quote-budget or bounded market order');
        ops[i] = OP_MARKET;
        args[i] = { side: c.side, size: c.qty as number };
      }
    } else if (c.type === 'cancel') {
      ops[i] = OP_CANCEL;
    } else {
      ops[i] = OP_MODIFY;
      const update: { price?: number; size?: number } = {};
      if (c.price !== undefined) update.price = c.price;
      if (c.qty !== undefined) update.size = c.qty;
      args[i] = update;
    }
  }
  return { ops, args, ids };
}

/** Runs commands [from, to) of the program; returns a checksum so the work cannot be skipped. */
export function runNob(book: NobBook, p: NobProgram, from: number, to: number): number {
  const { ops, args, ids } = p;
  let errors = 0;
  for (let i = from; i < to; i++) {
    const op = ops[i];
    if (op === OP_LIMIT) {
      if (book.limit(args[i] as Parameters<NobBook['limit']>[0]).err !== null) errors++;
    } else if (op === OP_CANCEL) {
      if (book.cancel(ids[i]) === undefined) errors++;
    } else if (op === OP_MODIFY) {
      if (book.modify(ids[i], args[i] as Parameters<NobBook['modify']>[1]).err !== null) errors++;
    } else {
      if (book.market(args[i] as Parameters<NobBook['market']>[0]).err !== null) errors++;
    }
  }
  return errors;
}

/** Same, timing every command into lat (ns). */
export function runNobTimed(book: NobBook, p: NobProgram, lat: Float64Array): void {
  const { ops, args, ids } = p;
  const hr = process.hrtime.bigint;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const t0 = hr();
    if (op === OP_LIMIT) book.limit(args[i] as Parameters<NobBook['limit']>[0]);
    else if (op === OP_CANCEL) book.cancel(ids[i]);
    else if (op === OP_MODIFY) book.modify(ids[i], args[i] as Parameters<NobBook['modify']>[1]);
    else book.market(args[i] as Parameters<NobBook['market']>[0]);
    lat[i] = Number(hr() - t0);
  }
}

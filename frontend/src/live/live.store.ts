import type { BalanceData, OptionResultData, OrderData, PositionData, PositionsData } from '@kestrel/contracts';
import { useEffect } from 'react';
import { create } from 'zustand';
import { getSocket, type MarketSocket } from '../api/socket';
import { truncate } from '../components/format';
import { t } from '../i18n/i18n';
import { useSessionStore } from '../stores/session.store';
import { toast } from '../stores/toast.store';

export type LiveStatus = 'connecting' | 'live' | 'offline';

interface LiveState {
  status: LiveStatus;
  /** Bumped after a reconnect without recovery: screens reload their snapshots when it changes. */
  resync: number;
  /** The private `balance` stream: last applied seq and the balances by `account:currency`. */
  balanceSeq: number;
  balances: Record<string, BalanceData>;
  balanceVersion: number;
  /** The private `orders` stream: bumped on every message (one or more order changes), with the latest change. */
  orderVersion: number;
  lastOrder: OrderData | null;
  /** The private `option` stream: bumped when one of the user's options is delivered. */
  optionVersion: number;
  lastOption: OptionResultData | null;
  /** The private `position` stream: every open contract position (null until the first push), last applied seq. */
  positionSeq: number;
  positions: PositionData[] | null;
}

export const balanceKey = (account: string, currencyId: number) => `${account}:${currencyId}`;

export const useLiveStore = create<LiveState>(() => ({
  status: 'connecting',
  resync: 0,
  balanceSeq: -1,
  balances: {},
  balanceVersion: 0,
  orderVersion: 0,
  lastOrder: null,
  optionVersion: 0,
  lastOption: null,
  positionSeq: -1,
  positions: null,
}));

let bound: MarketSocket | null = null;
let users = 0;
let wasDown = false;
/** The bound socket has not connected since it was bound (it was not connected then). */
let firstConnect = false;
const set = useLiveStore.setState;

const onConnect = () => {
  const socket = bound!;
  // Without recovery the rooms and missed messages are gone: every screen takes fresh snapshots, and
  // the balances pushed before the drop go with them (a screen prefers a pushed balance to its
  // snapshot: an old one would stand over the fresh figure until the next push of that coin).
  // A signed-in socket's first `connect` too: the screens' first reads may have come before it was in
  // its private room (the server joins it before `connect`), and a change between the two was pushed
  // to nobody.
  const missed = wasDown || (firstConnect && !!useSessionStore.getState().token);
  if (missed && !socket.recovered) set((s) => ({ status: 'live', resync: s.resync + 1, balanceSeq: -1, balances: {}, positionSeq: -1 }));
  else set({ status: 'live' });
  wasDown = false;
  firstConnect = false;
};
const onDown = () => {
  wasDown = true;
  set({ status: 'offline' });
};
const onBalance = (m: { seq: number; data: BalanceData[] }) => {
  const s = useLiveStore.getState();
  if (m.seq <= s.balanceSeq) return;
  const balances = { ...s.balances };
  for (const b of m.data) balances[balanceKey(b.account_type, b.currency_id)] = b;
  set({ balanceSeq: m.seq, balances, balanceVersion: s.balanceVersion + 1 });
};
/** Positions this app has just asked to close (id → when): their close answers with its own toast. */
const askedToClose = new Map<string, number>();
/** Called before `lever/close`: a push of that close within 10 s gets no second toast. Answers the undo (the request failed). */
export function closingHere(id: string): () => void {
  askedToClose.set(id, Date.now());
  return () => askedToClose.delete(id);
}

/**
 * Open positions pushed on every change; one the watcher closed (liquidation, stop loss, take
 * profit, or the user's own close settled later, once the house could pay it) gets a toast.
 */
const onPosition = (m: { seq: number; data: PositionsData }) => {
  const s = useLiveStore.getState();
  if (m.seq <= s.positionSeq) return;
  const now = Date.now();
  for (const [id, at] of askedToClose) if (now - at > 10_000) askedToClose.delete(id);
  const wasClosing = (id: string) => !!s.positions?.find((p) => p.id === id)?.closing && !askedToClose.has(id);
  for (const c of m.data.closed)
    if (c.status === 'closed' && c.reason && (c.reason !== 'user' || wasClosing(c.id)))
      toast(t('positionsLive.endedToast', { symbol: c.symbol, reason: t(`lever.closeReason.${c.reason}`), pnl: truncate(c.pnl ?? '0', 4) }), 4000);
  set({ positionSeq: m.seq, positions: m.data.positions });
};
const onOrders = (m: { data: OrderData[] }) => set((s) => ({ orderVersion: s.orderVersion + 1, lastOrder: m.data[m.data.length - 1] ?? s.lastOrder }));

/** A delivered option: a settlement toast (result in words, never colour alone) and the lists reload. */
const onOption = (m: { data: OptionResultData }) => {
  const d = m.data;
  const result = d.result ? t(`option.result.${d.result}`) : '--';
  toast(
    d.result === 'void'
      ? t('option.voidToast', { symbol: d.symbol, payout: truncate(d.payout ?? '0', 4) })
      : t('option.settledToast', { symbol: d.symbol, result, pnl: truncate(d.pnl ?? '0', 4) }),
    4000,
  );
  set((s) => ({ optionVersion: s.optionVersion + 1, lastOption: d }));
};

function bind(): void {
  const socket = getSocket();
  if (bound === socket) return;
  unbind();
  bound = socket;
  wasDown = false;
  firstConnect = !socket.connected;
  set({ status: socket.connected ? 'live' : 'connecting', balanceSeq: -1, balances: {}, positionSeq: -1, positions: null });
  socket.on('connect', onConnect);
  socket.on('disconnect', onDown);
  socket.on('connect_error', onDown);
  socket.on('balance', onBalance);
  socket.on('orders', onOrders);
  socket.on('option', onOption);
  socket.on('position', onPosition);
}

function unbind(): void {
  if (!bound) return;
  bound.off('connect', onConnect);
  bound.off('disconnect', onDown);
  bound.off('connect_error', onDown);
  bound.off('balance', onBalance);
  bound.off('orders', onOrders);
  bound.off('option', onOption);
  bound.off('position', onPosition);
  bound = null;
}

/**
 * The user room and the connection state for a screen: binds to the session's socket while the
 * screen is mounted (the socket follows the token). Returns the status and the resync counter.
 */
export function useLive() {
  const token = useSessionStore((s) => s.token);
  useEffect(() => {
    users++;
    bind();
    return () => {
      if (--users === 0) unbind();
    };
  }, [token]);
  const status = useLiveStore((s) => s.status);
  const resync = useLiveStore((s) => s.resync);
  return { status, resync, offline: status === 'offline' };
}

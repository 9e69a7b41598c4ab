import type { DepthData, Envelope, TradeData } from '@kestrel/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { getSocket } from '../../../api/socket';
import { tradingApi } from '../../../api/trading';
import { followTopics } from '../../../live/topics';

const KEEP_TRADES = 20;

/**
 * Depth and latest trades of one market: HTTP first, then `depth:<symbol>` and `trades:<symbol>`
 * from the socket. Messages only land in refs; one requestAnimationFrame per frame publishes what
 * arrived to React, so bursts cost one render a frame at most. `tradesIn`: the latest trades have
 * come (none is "No data" then, not a blank table); `failed`: a first HTTP read got no answer and
 * the socket has not given that part either (`retry` reads it again).
 */
export function useMarketFeed(symbol: string | undefined) {
  const [depth, setDepth] = useState<DepthData | null>(null);
  const [trades, setTrades] = useState<TradeData[]>([]);
  // The market the figures held are of: the render that switches market shows none of the one before.
  const [of, setOf] = useState(symbol);
  const [tradesIn, setTradesIn] = useState(false);
  // Per part: a book that did not load says so in the book, trades in the latest trades.
  const [failed, setFailed] = useState<Failed>(NONE_FAILED);
  const pending = useRef<{ depth: DepthData | null; trades: TradeData[] | null }>({ depth: null, trades: null });
  const reread = useRef<() => void>(() => undefined);

  useEffect(() => {
    setDepth(null);
    setTrades([]);
    setOf(symbol);
    setTradesIn(false);
    setFailed(NONE_FAILED);
    if (!symbol) return;
    const seq = { depth: -1, trades: -1 };
    /** The socket has given depth / trades (never reset, unlike the seqs): the first HTTP reads are older then. */
    const live = { depth: false, trades: false };
    let latest: TradeData[] = [];
    /** Trades pushed since the subscribe went out, before its snapshot: newer than it when their seq is higher. */
    let early: Array<Envelope<TradeData[]>> | null = null;
    let frame = 0;
    let stopped = false;
    const flush = () => {
      frame = 0;
      const p = pending.current;
      if (p.depth) setDepth(p.depth);
      if (p.trades) {
        setTrades(p.trades);
        setTradesIn(true);
      }
      pending.current = { depth: null, trades: null };
    };
    const schedule = () => {
      if (!frame && !stopped) frame = requestAnimationFrame(flush);
    };
    /** What has come for each part, by either way; the first HTTP reads that failed. */
    const got = { depth: false, trades: false };
    const missing = { depth: false, trades: false };
    const came = (part: 'depth' | 'trades') => {
      if (got[part]) return;
      got[part] = true;
      if (!missing[part]) return;
      missing[part] = false;
      setFailed({ ...missing });
    };
    const putTrades = (newestFirst: TradeData[]) => {
      const seen = new Set(latest.map((t) => t.trade_id));
      latest = [...newestFirst.filter((t) => !seen.has(t.trade_id)), ...latest].slice(0, KEEP_TRADES);
      pending.current.trades = latest;
      schedule();
    };
    const onDepth = (m: Envelope<DepthData>) => {
      if (m.topic !== `depth:${symbol}` || m.seq <= seq.depth) return;
      seq.depth = m.seq;
      live.depth = true;
      came('depth');
      pending.current.depth = m.data;
      schedule();
    };
    const onTrades = (m: Envelope<TradeData[]>) => {
      if (m.topic !== `trades:${symbol}` || m.seq <= seq.trades) return;
      // One missed (its seq skipped): the trades in it would never show; a fresh snapshot has them.
      if (seq.trades >= 0 && m.seq > seq.trades + 1) stop.resync();
      seq.trades = m.seq;
      live.trades = true;
      came('trades');
      early?.push(m);
      putTrades([...m.data].reverse());
    };
    const socket = getSocket();
    socket.on('depth', onDepth);
    socket.on('trades', onTrades);
    const stop = followTopics(
      [`depth:${symbol}`, `trades:${symbol}`],
      (snap) => {
        if (snap.topic === `depth:${symbol}`) {
          // A whole book pushed after this snapshot was read is newer: it stays.
          if (snap.seq < seq.depth) return;
          seq.depth = snap.seq;
          live.depth = true;
          came('depth');
          pending.current.depth = snap.data as DepthData;
          schedule();
        } else if (snap.topic === `trades:${symbol}`) {
          live.trades = true;
          came('trades');
          latest = [];
          putTrades([...(snap.data as TradeData[])].reverse());
          // Trades pushed after this snapshot was read go on top of it.
          for (const m of early ?? []) if (m.seq > snap.seq) putTrades([...m.data].reverse());
          early = null;
          seq.trades = Math.max(seq.trades, snap.seq);
        }
      },
      () => {
        seq.depth = -1;
        seq.trades = -1;
        early = [];
      },
    );
    const fail = (part: 'depth' | 'trades') => {
      if (got[part] || stopped) return;
      missing[part] = true;
      setFailed({ ...missing });
    };
    /** One part's first read over HTTP, unless it has come already; dropped once the socket gave that part. */
    const first = <T>(part: 'depth' | 'trades', fetch: () => Promise<T>, take: (value: T) => void) => {
      if (got[part]) return;
      fetch().then(
        (value) => {
          if (live[part] || stopped) return;
          came(part);
          take(value);
        },
        () => fail(part),
      );
    };
    // The first reads (again by `retry`, for what has not come since).
    const read = () => {
      missing.depth = missing.trades = false;
      setFailed(NONE_FAILED);
      first('depth', () => tradingApi.depth(symbol), setDepth);
      first('trades', () => tradingApi.deals(symbol), putTrades);
    };
    read();
    reread.current = read;
    return () => {
      stopped = true;
      if (frame) cancelAnimationFrame(frame);
      // What arrived for this market and was not drawn yet must not be drawn for the next one (its
      // depth would bound the next market's market orders).
      pending.current = { depth: null, trades: null };
      socket.off('depth', onDepth);
      socket.off('trades', onTrades);
      stop();
      reread.current = () => undefined;
    };
  }, [symbol]);
  const retry = useCallback(() => reread.current(), []);
  return of === symbol ? { depth, trades, tradesIn, failed, retry } : { depth: null, trades: NONE, tradesIn: false, failed: NONE_FAILED, retry };
}

const NONE: TradeData[] = [];
type Failed = { depth: boolean; trades: boolean };
const NONE_FAILED: Failed = { depth: false, trades: false };

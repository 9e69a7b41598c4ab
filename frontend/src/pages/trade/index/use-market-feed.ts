import type { DepthData, Envelope, TradeData } from '@kestrel/contracts';
import { useEffect, useRef, useState } from 'react';
import { getSocket } from '../../../api/socket';
import { tradingApi } from '../../../api/trading';
import { followTopics } from '../../../live/topics';

const KEEP_TRADES = 20;

/**
 * Depth and latest trades of one market: HTTP first, then `depth:<symbol>` and `trades:<symbol>`
 * from the socket. Messages only land in refs; one requestAnimationFrame per frame publishes what
 * arrived to React, so bursts cost one render a frame at most.
 */
export function useMarketFeed(symbol: string | undefined) {
  const [depth, setDepth] = useState<DepthData | null>(null);
  const [trades, setTrades] = useState<TradeData[]>([]);
  // The market the figures held are of: the render that switches market shows none of the one before.
  const [of, setOf] = useState(symbol);
  const pending = useRef<{ depth: DepthData | null; trades: TradeData[] | null }>({ depth: null, trades: null });

  useEffect(() => {
    setDepth(null);
    setTrades([]);
    setOf(symbol);
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
      if (p.trades) setTrades(p.trades);
      pending.current = { depth: null, trades: null };
    };
    const schedule = () => {
      if (!frame && !stopped) frame = requestAnimationFrame(flush);
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
      pending.current.depth = m.data;
      schedule();
    };
    const onTrades = (m: Envelope<TradeData[]>) => {
      if (m.topic !== `trades:${symbol}` || m.seq <= seq.trades) return;
      seq.trades = m.seq;
      live.trades = true;
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
          pending.current.depth = snap.data as DepthData;
          schedule();
        } else if (snap.topic === `trades:${symbol}`) {
          live.trades = true;
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
    tradingApi.depth(symbol).then(
      (d) => !live.depth && !stopped && setDepth(d),
      () => undefined,
    );
    tradingApi.deals(symbol).then(
      (list) => !live.trades && !stopped && putTrades(list),
      () => undefined,
    );
    return () => {
      stopped = true;
      if (frame) cancelAnimationFrame(frame);
      // What arrived for this market and was not drawn yet must not be drawn for the next one (its
      // depth would bound the next market's market orders).
      pending.current = { depth: null, trades: null };
      socket.off('depth', onDepth);
      socket.off('trades', onTrades);
      stop();
    };
  }, [symbol]);
  return of === symbol ? { depth, trades } : { depth: null, trades: NONE };
}

const NONE: TradeData[] = [];

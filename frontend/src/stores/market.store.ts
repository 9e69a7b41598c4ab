import type { Envelope, TickerData } from '@kestrel/contracts';
import { create } from 'zustand';
import { api } from '../api/endpoints';
import { getSocket } from '../api/socket';
import { followTopics } from '../live/topics';

type Status = 'idle' | 'loading' | 'live' | 'offline';

interface MarketState {
  tickers: TickerData[];
  status: Status;
  /** The `tickers` topic's last applied sequence number: older messages are dropped. */
  seq: number;
  loaded: boolean;
  /**
   * The tickers are current: loaded or pushed while followed. False from the moment nobody follows
   * them (their pushes stop) until a follower's snapshot or push arrives: minutes-old figures are
   * shown, never used as a price to deal at (the order form's starting limit price).
   */
  fresh: boolean;
  /** The HTTP load failed and nothing came over the socket yet: the lists offer a retry. */
  failed: boolean;
  /** Loads the tickers over HTTP (until something is loaded; again by "Try again" after a failure). */
  load: () => void;
  /** Loads the tickers over HTTP, then follows the `tickers` topic; returns a stop function. */
  follow: () => () => void;
  apply: (seq: number, tickers: TickerData[]) => void;
}

let followers = 0;
/** The `tickers` subscription while anyone follows (its stop function). */
let following: (() => void) | undefined;
/** Counts HTTP loads (load). */
let loads = 0;
/** The socket was seen connected: not connected now means it dropped (not a first connect still on its way). */
let wasConnected = false;

export const useMarketStore = create<MarketState>((set, get) => ({
  tickers: [],
  status: 'idle',
  seq: -1,
  loaded: false,
  fresh: false,
  failed: false,
  apply: (seq, tickers) => {
    if (seq <= get().seq) return;
    set({ seq, tickers, loaded: true, fresh: true, failed: false, status: 'live' });
  },
  load: () => {
    if (get().loaded) return;
    // Only the newest load's failure counts (an older one failing after a retry started is not shown).
    const mine = ++loads;
    set({ status: 'loading', failed: false });
    api
      .quotation()
      .then((groups) => {
        if (!get().loaded) set({ tickers: groups.flatMap((g) => g.markets), loaded: true, fresh: true });
      })
      .catch(() => {
        if (!get().loaded && mine === loads) set({ failed: true, status: 'idle' });
      });
  },
  follow: () => {
    followers++;
    get().load();
    const socket = getSocket();
    const onTickers = (m: Envelope<TickerData[]>) => get().apply(m.seq, m.data);
    // The socket may have dropped while nobody followed (another tab of the app): not "Live" then.
    if (socket.connected) wasConnected = true;
    else if (wasConnected) set({ status: 'offline' });
    const onDisconnect = () => set({ status: 'offline' });
    const onConnect = () => {
      wasConnected = true;
      set({ status: 'live' });
    };
    socket.on('tickers', onTickers);
    socket.on('disconnect', onDisconnect);
    // A connection refused (the server away, a first connect that failed): as a drop.
    socket.on('connect_error', onDisconnect);
    socket.on('connect', onConnect);
    // One subscription however many follow (live/topics.ts: sent again after a reconnect without
    // recovery or an error answer); the seqs start again as each subscribe goes out, so a push
    // before its answer (a restarted server counts from 0) is taken and stays over an older snapshot.
    following ??= followTopics(
      ['tickers'],
      (snap) => {
        if (snap.topic === 'tickers' && snap.seq >= get().seq)
          set({ seq: snap.seq, tickers: snap.data as TickerData[], loaded: true, fresh: true, failed: false, status: 'live' });
      },
      () => set({ seq: -1 }),
    );
    return () => {
      socket.off('tickers', onTickers);
      socket.off('disconnect', onDisconnect);
      socket.off('connect_error', onDisconnect);
      socket.off('connect', onConnect);
      if (--followers === 0) {
        following?.();
        following = undefined;
        set({ fresh: false });
      }
    };
  },
}));

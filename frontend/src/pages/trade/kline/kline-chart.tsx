import type { CandleData, Envelope, Period } from '@kestrel/contracts';
import { AreaSeries, CandlestickSeries, createChart, HistogramSeries, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getSocket } from '../../../api/socket';
import { tradingApi, type MarketInfo } from '../../../api/trading';
import { LoadFailed } from '../../../components/feedback';
import { truncate } from '../../../components/format';
import { currentLang, HTML_LANG } from '../../../i18n/i18n';
import { followTopics } from '../../../live/topics';
import { useTheme, useThemeStore } from '../../../stores/theme.store';
import { chartTimes } from './chart-times';

interface Series {
  candles: ISeriesApi<'Candlestick'>;
  line: ISeriesApi<'Area'>;
  volume: ISeriesApi<'Histogram'>;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
/** Chart coordinates are numbers (the canvas needs them); the money itself stays a string everywhere else. */
const n = (v: string) => Number(v);

/** A volume bar coloured like its candle (up or down colour of the current theme, translucent). */
const volumeBar = (k: CandleData, up: string, down: string) => ({
  time: k.time as UTCTimestamp,
  value: n(k.volume),
  color: (n(k.close) >= n(k.open) ? up : down) + '88',
});

/**
 * The K-line: candles (or the time-share line) with a volume histogram. The chart is created once
 * and kept mounted; switching market or period clears the series and loads that history, then
 * follows `kline:<symbol>:<period>` with `series.update`. Messages are applied in seq order and a
 * candle older than the last one drawn is dropped (lightweight-charts only appends or replaces the
 * last bar). The price scale shows the market's tick size, its labels grouped. Volume sits in a
 * second pane (its own axis, so price labels never overlap it) and is recoloured when the theme or
 * the up colour changes. `height` in pixels, or none where the page sizes the chart (the
 * full-screen chart fills what its header leaves).
 */
export function KlineChart({ market, period, height }: { market: MarketInfo | null; period: Period; height?: number }) {
  const { t, i18n } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<Series | null>(null);
  const theme = useTheme();
  const upColor = useThemeStore((s) => s.upColor);
  /** The candles drawn (sorted), so a theme switch can recolour the volume bars without a reload. */
  const drawn = useRef<CandleData[]>([]);
  // The history did not load and the socket has not given it: a retry in the chart's place (not an
  // empty chart, which reads as a market without candles); `attempt` loads it again.
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  // Create once.
  useEffect(() => {
    const c = createChart(box.current!, {
      autoSize: true,
      // A few bars' room after the last one: the newest candle and its time label are not cut by the price axis.
      timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 4 },
      rightPriceScale: { borderVisible: false },
      crosshair: { mode: 0 },
    });
    const candles = c.addSeries(CandlestickSeries, { borderVisible: false });
    const line = c.addSeries(AreaSeries, { lineWidth: 2, visible: false });
    // Volume in its own pane (index 1) under the price pane: each pane has its own price axis, so
    // the price labels stop at the pane's border and never overlap the volume bars.
    const volume = c.addSeries(HistogramSeries, { priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false }, 1);
    const panes = c.panes();
    panes[0].setStretchFactor(4);
    panes[1].setStretchFactor(1);
    // A price label whose text would cross the pane's edge is left out (`entireTextOnly`): on a
    // short chart (the options screen's) the lowest one ran into the volume axis's label.
    c.priceScale('right').applyOptions({ scaleMargins: { top: 0.1, bottom: 0.05 }, entireTextOnly: true });
    c.priceScale('right', 1).applyOptions({ scaleMargins: { top: 0.1, bottom: 0 } });
    chart.current = c;
    series.current = { candles, line, volume };
    return () => {
      c.remove();
      chart.current = null;
      series.current = null;
    };
  }, []);

  // Colours follow the theme and the up-colour setting.
  useEffect(() => {
    const c = chart.current!;
    const s = series.current!;
    const up = css('--up') || css('--green');
    const down = css('--down') || css('--red');
    c.applyOptions({
      // The line between the price and volume panes and the time axis's in the theme's border colour
      // (the library's own are fixed: near white between the panes on the dark theme, navy under the light one).
      timeScale: { borderColor: css('--border') },
      layout: {
        background: { color: css('--surface') },
        textColor: css('--muted'),
        attributionLogo: false,
        panes: { separatorColor: css('--border'), separatorHoverColor: css('--border') },
      },
      grid: { vertLines: { color: css('--border') + '55' }, horzLines: { color: css('--border') + '55' } },
    });
    s.candles.applyOptions({ upColor: up, downColor: down, wickUpColor: up, wickDownColor: down });
    s.line.applyOptions({ lineColor: css('--primary'), topColor: css('--primary') + '55', bottomColor: css('--primary') + '05' });
    s.volume.setData(drawn.current.map((k) => volumeBar(k, up, down)));
  }, [theme, upColor]);

  // Time labels: the period's (intraday in the user's time zone, daily bars by their UTC date), in the app's language.
  useEffect(() => {
    const times = chartTimes(period, HTML_LANG[currentLang()]);
    chart.current!.applyOptions({
      localization: { locale: HTML_LANG[currentLang()], timeFormatter: (time: unknown) => times.crosshair(time as number) },
      timeScale: { tickMarkFormatter: (time: unknown, type: Parameters<typeof times.tick>[1]) => times.tick(time as number, type) },
    });
  }, [period, i18n.language]);

  // Market and period: clear, load the history, follow the topic.
  useEffect(() => {
    const s = series.current!;
    s.candles.setData([]);
    s.line.setData([]);
    s.volume.setData([]);
    setFailed(false);
    if (!market) return;
    const precision = market.price_decimals;
    // Grouped as every other price in the app ("91,080.00"). The chart's numbers come from the
    // decimal strings of at most `precision` decimals, so toFixed gives their digits back.
    const priceFormat = { type: 'custom' as const, formatter: (p: number) => truncate(p.toFixed(precision), precision), minMove: n(market.tick_size) };
    s.candles.applyOptions({ priceFormat, visible: period !== 'time-share' });
    s.line.applyOptions({ priceFormat, visible: period === 'time-share' });
    drawn.current = [];
    // Read at draw time: the theme may have changed since this market was opened.
    const up = () => css('--up') || css('--green');
    const down = () => css('--down') || css('--red');
    let lastTime = -1;
    let lastSeq = -1;
    /** A snapshot has come (never reset): the first HTTP history is older then. */
    let snapshotted = false;
    /** Candles pushed since the subscribe went out, before its snapshot (null once it came): drawn again over it when newer. */
    let early: Array<Envelope<CandleData>> | null = null;
    let stopped = false;
    const draw = (k: CandleData) => {
      if (k.time < lastTime) return; // out of order: an older candle cannot be redrawn
      lastTime = k.time;
      const time = k.time as UTCTimestamp;
      s.candles.update({ time, open: n(k.open), high: n(k.high), low: n(k.low), close: n(k.close) });
      s.line.update({ time, value: n(k.close) });
      s.volume.update(volumeBar(k, up(), down()));
      const list = drawn.current;
      if (list.length && list[list.length - 1].time === k.time) list[list.length - 1] = k;
      else list.push(k);
    };
    const setAll = (list: CandleData[]) => {
      const sorted = [...list].sort((a, b) => a.time - b.time).filter((k, i, arr) => i === 0 || k.time > arr[i - 1].time);
      s.candles.setData(sorted.map((k) => ({ time: k.time as UTCTimestamp, open: n(k.open), high: n(k.high), low: n(k.low), close: n(k.close) })));
      s.line.setData(sorted.map((k) => ({ time: k.time as UTCTimestamp, value: n(k.close) })));
      const [u, d] = [up(), down()];
      s.volume.setData(sorted.map((k) => volumeBar(k, u, d)));
      drawn.current = sorted;
      lastTime = sorted.length ? sorted[sorted.length - 1].time : -1;
    };
    const topic = `kline:${market.symbol}:${period}` as const;
    const onKline = (m: Envelope<CandleData>) => {
      if (m.topic !== topic || m.seq <= lastSeq) return;
      // One missed (its seq skipped): a finished candle's last figures may be in it; a fresh snapshot has them.
      if (lastSeq >= 0 && m.seq > lastSeq + 1) stop.resync();
      lastSeq = m.seq;
      early?.push(m);
      draw(m.data);
    };
    const socket = getSocket();
    socket.on('kline', onKline);
    const stop = followTopics(
      [topic],
      (snap) => {
        if (stopped || snap.topic !== topic) return;
        setAll(snap.data as CandleData[]);
        // Candles pushed after this snapshot was read are newer than its bars.
        for (const m of early ?? []) if (m.seq > snap.seq) draw(m.data);
        early = null;
        snapshotted = true;
        setFailed(false);
        lastSeq = Math.max(lastSeq, snap.seq);
      },
      () => {
        lastSeq = -1;
        early = [];
      },
    );
    // The HTTP history covers the moment before the socket answers (or when it is down).
    tradingApi.candles(market.symbol, period).then(
      (list) => {
        if (stopped || snapshotted) return;
        setAll(list);
        for (const m of early ?? []) draw(m.data);
      },
      () => !stopped && !snapshotted && setFailed(true),
    );
    return () => {
      stopped = true;
      socket.off('kline', onKline);
      stop();
    };
  }, [market, period, attempt]);

  return (
    <>
      <div
        ref={box}
        className="kline"
        style={{ height, display: failed ? 'none' : undefined }}
        role="img"
        aria-label={t('trade.chartLabel', { symbol: market?.symbol ?? '' })}
        data-testid="kline"
      />
      {failed && <LoadFailed onRetry={() => setAttempt((a) => a + 1)} />}
    </>
  );
}

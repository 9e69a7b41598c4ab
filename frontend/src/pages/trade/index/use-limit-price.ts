import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * The order form's limit price: empty for each market, then the market's last price once it is
 * known, unless the user typed or tapped one first. It is started once per market: a field the
 * user empties stays empty for what they type next (started again, the last price would be in
 * front of their keystrokes: "3012.47" + "2990").
 *
 * The starting price is set from the newest state, not from the render's: a tap on a book price
 * can be handled while this effect is still pending (React runs pending effects before it renders
 * the tap's update), and an update from the render's empty price would then replace the tap.
 */
export function useLimitPrice(symbol: string | undefined, last: string | null): [string, (price: string) => void] {
  const [price, setPrice] = useState('');
  // The market the field is for, and whether it was started (`last` must be this market's: the
  // caller's feed gives no figure of the market before in the render that switched).
  const field = useRef({ symbol, started: false });
  useEffect(() => {
    if (field.current.symbol === symbol) return;
    field.current = { symbol, started: false };
    setPrice('');
  }, [symbol]);
  useEffect(() => {
    const f = field.current;
    if (f.started || !last) return;
    f.started = true;
    setPrice((p) => p || last);
  }, [last, symbol]);
  // A price the user typed or tapped: the field is theirs from then on.
  const set = useCallback((p: string) => {
    if (p) field.current.started = true;
    setPrice(p);
  }, []);
  return [price, set];
}

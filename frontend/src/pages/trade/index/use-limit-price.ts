import { useEffect, useState } from 'react';

/**
 * The order form's limit price: empty for each market, then the market's last price once it is
 * known (and again whenever the field is emptied), unless the user typed or tapped one first.
 *
 * The starting price is set from the newest state, not from the render's: a tap on a book price
 * can be handled while this effect is still pending (React runs pending effects before it renders
 * the tap's update), and an update from the render's empty price would then replace the tap.
 */
export function useLimitPrice(symbol: string | undefined, last: string | null): [string, (price: string) => void] {
  const [price, setPrice] = useState('');
  useEffect(() => setPrice(''), [symbol]);
  useEffect(() => {
    if (!price && last) setPrice((p) => p || last);
  }, [last, price]);
  return [price, setPrice];
}

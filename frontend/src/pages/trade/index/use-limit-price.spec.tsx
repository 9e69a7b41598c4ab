import { createElement, useEffect, useLayoutEffect } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { useLimitPrice } from './use-limit-price';

// Outside `act`, React schedules its work as in the browser: a render's effects can still be
// pending when the next event arrives.
const env = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
let before: boolean | undefined;
beforeAll(() => {
  before = env.IS_REACT_ACT_ENVIRONMENT;
  env.IS_REACT_ACT_ENVIRONMENT = false;
});
afterAll(() => {
  env.IS_REACT_ACT_ENVIRONMENT = before;
});

const seen = { committed: false, effects: false };

function Form({ last, symbol = 'BTC/USDT' }: { last: string | null; symbol?: string }) {
  const [price, setPrice] = useLimitPrice(symbol, last);
  useLayoutEffect(() => {
    if (last) seen.committed = true;
  });
  useEffect(() => {
    if (last) seen.effects = true;
  });
  // A slow render (a busy phone): React's scheduler hands the thread back after the commit, before the effects.
  if (last) for (const until = performance.now() + 8; performance.now() < until;);
  return createElement(
    'div',
    null,
    createElement('button', { type: 'button', name: 'tap', onClick: () => setPrice('90') }, 'tap'),
    createElement('button', { type: 'button', name: 'empty', onClick: () => setPrice('') }, 'empty'),
    createElement('output', null, price),
  );
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('useLimitPrice', () => {
  it('keeps a price tapped while the last price is arriving (regression: the last price replaced the tap)', async () => {
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    try {
      flushSync(() => root.render(createElement(Form, { last: null })));
      expect(el.querySelector('output')!.textContent).toBe('');
      // The last price arrives (a socket message: a default-priority render) …
      root.render(createElement(Form, { last: '100' }));
      // … and the tap comes after its commit, before its effects run.
      let tapped = false;
      for (let i = 0; i < 500 && !tapped && !seen.effects; i++) {
        await tick();
        if (seen.committed && !seen.effects) {
          el.querySelector<HTMLButtonElement>('button[name=tap]')!.click();
          tapped = true;
        }
      }
      expect(tapped).toBe(true);
      for (let i = 0; i < 20; i++) await tick();
      expect(el.querySelector('output')!.textContent).toBe('90');
    } finally {
      root.unmount();
      el.remove();
    }
  });

  // Regression: an emptied field was refilled with the last price at once, so what the user typed next went
  // after it ("3012.47" + "2990"; "100" + "95" = "10095", a buy far above the market).
  it('starts at the last price once it is known, keeps a typed or tapped one, stays empty when emptied, and starts again for another market', async () => {
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    const shown = () => el.querySelector('output')!.textContent;
    const settle = async () => {
      for (let i = 0; i < 20; i++) await tick();
    };
    try {
      flushSync(() => root.render(createElement(Form, { last: '100' })));
      await settle();
      expect(shown()).toBe('100');
      el.querySelector<HTMLButtonElement>('button[name=tap]')!.click();
      await settle();
      expect(shown()).toBe('90');
      el.querySelector<HTMLButtonElement>('button[name=empty]')!.click();
      await settle();
      expect(shown()).toBe('');
      // A new last price does not fill it either: the field is the user's.
      flushSync(() => root.render(createElement(Form, { last: '101' })));
      await settle();
      expect(shown()).toBe('');
      // Another market: empty, then its own last price.
      flushSync(() => root.render(createElement(Form, { last: null, symbol: 'ETH/USDT' })));
      await settle();
      expect(shown()).toBe('');
      flushSync(() => root.render(createElement(Form, { last: '3012.47', symbol: 'ETH/USDT' })));
      await settle();
      expect(shown()).toBe('3012.47');
    } finally {
      root.unmount();
      el.remove();
    }
  });
});

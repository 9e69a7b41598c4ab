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

function Form({ last }: { last: string | null }) {
  const [price, setPrice] = useLimitPrice('BTC/USDT', last);
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

  it('starts at the last price once it is known, keeps a typed or tapped one, and starts again when the field is emptied', async () => {
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    try {
      flushSync(() => root.render(createElement(Form, { last: '100' })));
      for (let i = 0; i < 20; i++) await tick();
      expect(el.querySelector('output')!.textContent).toBe('100');
      el.querySelector<HTMLButtonElement>('button[name=tap]')!.click();
      for (let i = 0; i < 20; i++) await tick();
      expect(el.querySelector('output')!.textContent).toBe('90');
      el.querySelector<HTMLButtonElement>('button[name=empty]')!.click();
      for (let i = 0; i < 20; i++) await tick();
      expect(el.querySelector('output')!.textContent).toBe('100');
    } finally {
      root.unmount();
      el.remove();
    }
  });
});

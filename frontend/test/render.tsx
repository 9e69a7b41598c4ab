import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import type { MarketInfo } from '../src/api/trading';

/** Where the router is now, for assertions after a navigation. */
export function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

/** Renders a screen at `url` inside a router, with a probe that shows later navigations. */
export function renderAt(path: string, url: string, screen: ReactElement) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path={path} element={screen} />
        <Route path="*" element={null} />
      </Routes>
      <LocationProbe />
    </MemoryRouter>,
  );
}

type Answer = { type: string; code: number; message: string; data: unknown };
/** A fetch that answers by API path; records every call. */
export function fakeApi(answers: Record<string, Answer | ((body: URLSearchParams) => Answer)>) {
  const calls: Array<{ path: string; body: URLSearchParams; headers: Record<string, string> }> = [];
  global.fetch = jest.fn(async (url: string, init: RequestInit) => {
    const path = url.replace('./api/', '').split('?')[0];
    const body = new URLSearchParams((init.body as string) ?? '');
    calls.push({ path, body, headers: init.headers as Record<string, string> });
    const a = answers[path];
    const answer = typeof a === 'function' ? a(body) : (a ?? { type: 'error', code: 9000, message: `unexpected ${path}`, data: null });
    return { json: async () => answer } as Response;
  }) as unknown as typeof fetch;
  return calls;
}

export const ok = (data: unknown, message = 'Success'): Answer => ({ type: 'ok', code: 1, message, data });

/** A spot market as `currencyMatch/all` lists it: `<base>/USDT`, tick 0.01, lot 0.0001, fees 0.1 %. */
export const spotMarket = (base: string): MarketInfo => ({
  symbol: `${base}/USDT`,
  base,
  quote: 'USDT',
  tick_size: '0.01',
  lot_size: '0.0001',
  min_qty: '0.0001',
  price_decimals: 2,
  qty_decimals: 4,
  maker_fee: '0.001',
  taker_fee: '0.001',
});

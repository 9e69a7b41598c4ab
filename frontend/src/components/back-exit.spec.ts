import { createBackExit, EXIT_WINDOW_MS } from './back-exit';

it('a first back press warns, a second within 2 s exits, a later one warns again', () => {
  let now = 10_000;
  const guard = createBackExit(() => now);
  expect(guard.press()).toBe('warn');
  now += EXIT_WINDOW_MS;
  expect(guard.press()).toBe('exit');
  now += EXIT_WINDOW_MS + 1;
  expect(guard.press()).toBe('warn');
});

import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { newsApi, type NewsArticle } from '../../../api/news';
import { NoticeStrip } from './home-news';

afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

const article = (id: number, title: string) => ({ id, title, summary: '', published_at: '2026-12-01T08:00:00Z', pinned: false }) as unknown as NewsArticle;

// Regression: the strip rotated every 5 s whatever the user did: a tap as it turned opened another article
// than the one read, and a screen reader's link changed under it (WCAG 2.2.2).
it('the notice strip holds still while touched or focused, and rotates again when left', async () => {
  jest.useFakeTimers();
  jest
    .spyOn(newsApi, 'articles')
    .mockResolvedValue({ items: [article(1, 'Listing'), article(2, 'Maintenance'), article(3, 'Rewards')], total: 3, page: 1, limit: 5 });
  render(
    <MemoryRouter>
      <NoticeStrip />
    </MemoryRouter>,
  );
  await act(async () => undefined);
  const strip = screen.getByTestId('notice-strip');
  expect(strip.textContent).toContain('Listing');
  fireEvent.pointerDown(strip);
  act(() => void jest.advanceTimersByTime(6_000));
  expect(strip.textContent).toContain('Listing');
  fireEvent.mouseLeave(strip);
  act(() => void jest.advanceTimersByTime(5_000));
  expect(strip.textContent).toContain('Maintenance');
  fireEvent.focus(strip);
  act(() => void jest.advanceTimersByTime(6_000));
  expect(strip.textContent).toContain('Maintenance');
  // A touch that becomes a scroll (pointercancel) lets it turn again.
  fireEvent.blur(strip);
  fireEvent.pointerDown(strip);
  fireEvent.pointerCancel(strip);
  act(() => void jest.advanceTimersByTime(5_000));
  expect(strip.textContent).toContain('Rewards');
});

import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { ok, renderAt } from '../../../../test/render';
import { setLanguage } from '../../../i18n/i18n';
import { useSessionStore, type User } from '../../../stores/session.store';
import { NoticePage } from './notice.page';

const PATH = '/pages/notice/index';
type Answer = ReturnType<typeof ok>;
/** A fetch answering `notice/list` from its query (GET: the parameters are in the URL); records each query. */
function fakeList(answer: (q: URLSearchParams) => Answer) {
  const queries: URLSearchParams[] = [];
  global.fetch = jest.fn(async (url: string) => {
    const [path, query = ''] = url.replace('./api/', '').split('?');
    const q = new URLSearchParams(query);
    if (path === 'notice/list') queries.push(q);
    const body = path === 'notice/list' ? answer(q) : { type: 'error', code: 9000, message: `unexpected ${path}`, data: null };
    return { json: async () => body } as Response;
  }) as unknown as typeof fetch;
  return queries;
}
const message = (id: number) => ({ id: String(id), kind: 'x', title: `Message ${id}`, content: '', ref: '', read: true, created_at: '2026-12-01T08:00:00Z' });

beforeEach(() => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
});

it('messages: "Load more" reads the next page and appends it (past the 100 a single page holds), and goes after a short page', async () => {
  const total = 130;
  const queries = fakeList((q) => {
    const page = Number(q.get('page'));
    const limit = Number(q.get('limit'));
    const ids = Array.from({ length: total }, (_, i) => total - i).slice((page - 1) * limit, page * limit);
    return ok({ items: ids.map(message), total, page, limit, unread: 0 });
  });
  renderAt(PATH, `${PATH}?tab=message`, <NoticePage titleKey="titles.notice" />);
  await screen.findByText('Message 130');
  for (let shown = 20; shown < total; shown += 20) {
    expect(screen.getAllByTestId('message')).toHaveLength(shown);
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(Math.min(shown + 20, total)));
  }
  expect(screen.getByText('Message 1')).toBeTruthy();
  expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  expect(queries.map((q) => `${q.get('page')}/${q.get('limit')}`)).toEqual(['1/20', '2/20', '3/20', '4/20', '5/20', '6/20', '7/20']);
});

it('messages: a failed load offers a retry instead of "No messages yet"', async () => {
  let fail = true;
  fakeList(() =>
    fail ? { type: 'error', code: 9000, message: 'Server busy', data: null } : ok({ items: [message(1)], total: 1, page: 1, limit: 20, unread: 0 }),
  );
  renderAt(PATH, `${PATH}?tab=message`, <NoticePage titleKey="titles.notice" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No messages yet')).toBeNull();
  fail = false;
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('Message 1');
});

it('announcements: another language reads page 1 again in it, and the list holds that language only (not the old pages with the new one after them)', async () => {
  const total = 30;
  const langs: string[] = [];
  global.fetch = jest.fn(async (url: string, init: RequestInit) => {
    const [path, query = ''] = url.replace('./api/', '').split('?');
    const q = new URLSearchParams(query);
    const lang = (init.headers as Record<string, string>).lang;
    if (path !== 'newsArticle/list') return { json: async () => ({ type: 'error', code: 9000, message: `unexpected ${path}`, data: null }) } as Response;
    langs.push(`${lang}:${q.get('page')}`);
    const page = Number(q.get('page'));
    const ids = Array.from({ length: total }, (_, i) => total - i).slice((page - 1) * 20, page * 20);
    const items = ids.map((id) => ({ id, title: `${lang} ${id}`, summary: '', published_at: '2026-12-01T08:00:00Z', pinned: false }));
    return { json: async () => ok({ items, total, page, limit: 20 }) } as Response;
  }) as unknown as typeof fetch;
  try {
    renderAt(PATH, PATH, <NoticePage titleKey="titles.notice" />);
    await screen.findByText('en 30');
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByText('en 1');
    await act(() => setLanguage('jp', false));
    await screen.findByText('jp 30');
    expect(screen.getAllByTestId('announcement').map((li) => li.textContent?.split(' ')[0])).toEqual(Array(20).fill('jp'));
    expect(langs).toEqual(['en:1', 'en:2', 'jp:1']);
  } finally {
    await act(() => setLanguage('en', false));
  }
});

it('announcements: a failed load offers a retry instead of "No data"', async () => {
  let fail = true;
  global.fetch = jest.fn(async () => ({
    json: async () =>
      fail
        ? { type: 'error', code: 9000, message: 'Server busy', data: null }
        : ok({ items: [{ id: 1, title: 'Listing', summary: '', published_at: '2026-12-01T08:00:00Z', pinned: false }], total: 1, page: 1, limit: 20 }),
  })) as unknown as typeof fetch;
  renderAt(PATH, PATH, <NoticePage titleKey="titles.notice" />);
  await screen.findByTestId('load-failed');
  fail = false;
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('Listing');
});

// Regression: an announcement that did not load (no answer) said "No data", and opening it again never asked again.
it('announcements: one that did not load offers a retry, which reads it', async () => {
  let detail = 0;
  global.fetch = jest.fn(async (url: string) => {
    const path = url.replace('./api/', '').split('?')[0];
    const body =
      path === 'newsArticle/list'
        ? ok({ items: [{ id: 1, title: 'Listing', summary: '', published_at: '2026-12-01T08:00:00Z', pinned: false }], total: 1, page: 1, limit: 20 })
        : path === 'newsArticle/detailed' && ++detail > 1
          ? ok({ id: 1, title: 'Listing', content: '<p>New pair listed</p>', published_at: '2026-12-01T08:00:00Z', pinned: false })
          : { type: 'error', code: 9000, message: 'Server busy', data: null };
    return { json: async () => body } as Response;
  }) as unknown as typeof fetch;
  renderAt(PATH, PATH, <NoticePage titleKey="titles.notice" />);
  await userEvent.click(await screen.findByText('Listing'));
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No data')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('New pair listed');
  expect(detail).toBe(2);
});

// Regression: "Mark all as read" marked a message that came after the list was shown (its push lost),
// unseen; and it was disabled while unread messages were on pages not loaded yet.
it('messages: "Mark all as read" marks up to the newest message shown, and is offered while any is unread, loaded or not', async () => {
  const sent: string[] = [];
  global.fetch = jest.fn(async (url: string, init?: RequestInit) => {
    const path = url.replace('./api/', '').split('?')[0];
    if (path === 'notice/read_all') {
      sent.push(String(init?.body ?? ''));
      return { json: async () => ok({ updated: 5, unread: 1 }) } as Response;
    }
    // Page 1: twenty messages, all read; five unread ones further down.
    return { json: async () => ok({ items: Array.from({ length: 20 }, (_, i) => message(40 - i)), total: 40, page: 1, limit: 20, unread: 5 }) } as Response;
  }) as unknown as typeof fetch;
  renderAt(PATH, `${PATH}?tab=message`, <NoticePage titleKey="titles.notice" />);
  await screen.findByText('Message 40');
  const button = screen.getByTestId('notice-read-all') as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(false));
  await userEvent.click(button);
  await waitFor(() => expect(sent).toEqual(['up_to=40']));
});

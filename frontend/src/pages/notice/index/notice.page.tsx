import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { unanswered } from '../../../api/client';
import { newsApi, noticeApi, type NewsArticle, type NoticeMessage } from '../../../api/news';
import { loginPath } from '../../../app/paths';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { Page } from '../../../components/page';
import { usePaged } from '../../../components/use-paged';
import { useSessionStore } from '../../../stores/session.store';
import { useUnreadNotices, useUnreadStore } from '../unread.store';
import '../notice.css';
import { formatTime } from '../../../components/format';

type Tab = 'announcement' | 'message';
const LIMIT = 20;
const when = (iso: string) => formatTime(iso);

/**
 * `pages/notice/index`: announcements (the CMS's `announcement` category; `?article=` opens one
 * from a banner or the home strip) and the user's own messages with unread marks. Pull-down
 * refresh reloads the screen (the layout's, spec §2); a pushed message reloads the list.
 */
export function NoticePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab: Tab = params.get('tab') === 'message' ? 'message' : 'announcement';
  const article = Number(params.get('article')) || undefined;
  const unread = useUnreadNotices();
  return (
    <Page title={t(titleKey)} back>
      <FilterTabs
        label={t('news.tabsLabel')}
        value={tab}
        options={[
          { value: 'announcement', label: t('news.tabs.announcement') },
          {
            value: 'message',
            label: (
              <>
                {t('news.tabs.message')}
                {unread > 0 && (
                  <span className="notice-item__tag" data-testid="notice-tab-unread" aria-label={t('news.unreadLabel', { count: unread })}>
                    {unread}
                  </span>
                )}
              </>
            ),
          },
        ]}
        onChange={(k) => setParams(k === 'message' ? { tab: k } : {}, { replace: true })}
        testId={(k) => `notice-tab-${k}`}
      />
      {tab === 'announcement' ? <Announcements open={article} /> : <Messages />}
    </Page>
  );
}

function Announcements({ open }: { open?: number }) {
  const { t, i18n } = useTranslation();
  const [total, setTotal] = useState(0);
  // Reading page 1 again (another language) drops a "Load more" still on its way, so no list mixes two languages.
  const { items, failed, more, busy, reload, loadMore } = usePaged((page: number) => newsApi.articles('announcement', page, LIMIT), LIMIT, {
    idOf: (a) => a.id,
    onPage: (p) => setTotal(p.total),
  });
  const [expanded, setExpanded] = useState<number | undefined>(open);
  // null: no such article; 'failed': no answer (a retry is offered, not "No data").
  const [details, setDetails] = useState<Record<number, NewsArticle | null | 'failed'>>({});
  const requested = useRef(new Set<number>());
  // Bumped with the language: an article's answer in the one before is dropped.
  const generation = useRef(0);
  const show = useCallback((id: number, toggle = true) => {
    setExpanded((e) => (toggle && e === id ? undefined : id));
    if (requested.current.has(id)) return;
    requested.current.add(id);
    const mine = generation.current;
    newsApi.article(id).then(
      (a) => mine === generation.current && setDetails((x) => ({ ...x, [id]: a })),
      (err: unknown) => {
        if (mine !== generation.current) return;
        // Asked again when opened again (or by Try again).
        requested.current.delete(id);
        setDetails((x) => ({ ...x, [id]: unanswered(err) ? 'failed' : null }));
      },
    );
  }, []);
  const expandedNow = useRef(expanded);
  expandedNow.current = expanded;
  useEffect(() => {
    // The list, and the article open, read (again) in the language now chosen.
    generation.current++;
    requested.current.clear();
    setDetails({});
    reload();
    const id = expandedNow.current;
    if (id) show(id, false);
  }, [i18n.language, reload, show]);
  useEffect(() => {
    if (open) show(open, false);
  }, [open, show]);
  // An article opened from a banner may be of another category: shown above the list.
  const outside = open && items && !items.some((a) => a.id === open) ? details[open] : undefined;
  if (items === null) return failed ? <LoadFailed onRetry={reload} /> : <Skeleton rows={4} height={56} />;
  return (
    <section className="card" aria-label={t('news.tabs.announcement')}>
      {outside === 'failed' && <LoadFailed onRetry={() => show(open!, false)} />}
      {outside && outside !== 'failed' && (
        <article className="notice-article" data-testid="notice-article">
          <h2>{outside.title}</h2>
          <div className="notice-item__time">{when(outside.published_at)}</div>
          <div dangerouslySetInnerHTML={{ __html: outside.content ?? '' }} />
        </article>
      )}
      {items.length === 0 ? (
        <Empty />
      ) : (
        <ul className="notice-list" data-testid="announcements">
          {items.map((a) => (
            <li key={a.id} className="notice-item" data-testid="announcement">
              <button type="button" aria-expanded={expanded === a.id} onClick={() => show(a.id)}>
                <span className="notice-item__head">
                  {a.pinned && <span className="notice-item__tag">{t('news.pinned')}</span>}
                  <span>{a.title}</span>
                </span>
                {a.summary && <p className="notice-item__text">{a.summary}</p>}
                <div className="notice-item__time">{when(a.published_at)}</div>
              </button>
              {expanded === a.id && (
                <div className="notice-article" data-testid="notice-article">
                  {details[a.id] === undefined ? (
                    <Skeleton rows={2} />
                  ) : details[a.id] === 'failed' ? (
                    <LoadFailed onRetry={() => show(a.id, false)} />
                  ) : details[a.id] === null ? (
                    <Empty />
                  ) : (
                    // Sanitised by the server (markdown-it without raw HTML, then sanitize-html).
                    <div dangerouslySetInnerHTML={{ __html: (details[a.id] as NewsArticle).content ?? '' }} />
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {more && items.length < total && (
        <button type="button" className="button button--block" onClick={loadMore} disabled={busy}>
          {t('common.loadMore')}
        </button>
      )}
    </section>
  );
}

function Messages() {
  const { t, i18n } = useTranslation();
  const location = useLocation();
  const token = useSessionStore((s) => s.token);
  const version = useUnreadStore((s) => s.version);
  const setUnread = useUnreadStore((s) => s.set);
  // The server's count (every page), not only the loaded messages': some may be on pages not loaded yet.
  const unread = useUnreadStore((s) => s.unread);
  const [total, setTotal] = useState(0);
  // Reading page 1 again (a pushed message, another language) drops a "Load more" still on its way;
  // a message already shown is not shown twice when the list moved between two pages.
  const list = usePaged((page: number) => noticeApi.list(page, LIMIT), LIMIT, {
    idOf: (m) => m.id,
    onPage: (p) => {
      setTotal(p.total);
      setUnread(p.unread);
    },
  });
  const { items, setItems, failed, more, busy, reload } = list;
  useEffect(() => {
    if (token) reload();
  }, [token, version, i18n.language, reload]);
  if (!token)
    return (
      <section className="card login-prompt">
        <p>{t('news.loginForMessages')}</p>
        <Link className="button button--primary" to={loginPath(location.pathname + location.search)}>
          {t('auth.login')}
        </Link>
      </section>
    );
  if (items === null) return failed ? <LoadFailed onRetry={reload} /> : <Skeleton rows={4} height={56} />;
  const read = (m: NoticeMessage) => {
    if (m.read) return;
    noticeApi.read(m.id).then(
      (r) => {
        setItems((list) => list?.map((x) => (x.id === m.id ? { ...x, read: true } : x)) ?? null);
        setUnread(r.unread);
      },
      () => undefined,
    );
  };
  // Up to the newest message shown: one that came meanwhile (its push not here yet) stays unread.
  const newest = items.reduce<string | undefined>((max, m) => (max === undefined || BigInt(m.id) > BigInt(max) ? m.id : max), undefined);
  const readAll = () =>
    noticeApi.readAll(newest).then(
      (r) => {
        setItems((list) => list?.map((x) => (newest !== undefined && BigInt(x.id) <= BigInt(newest) ? { ...x, read: true } : x)) ?? null);
        setUnread(r.unread);
      },
      () => undefined,
    );
  return (
    <section className="card" aria-label={t('news.tabs.message')}>
      <div className="notice-toolbar">
        <span className="notice-item__time">{t('news.total', { count: total })}</span>
        <button type="button" className="button" onClick={readAll} disabled={unread === 0 || newest === undefined} data-testid="notice-read-all">
          {t('news.readAll')}
        </button>
      </div>
      {items.length === 0 ? (
        <Empty text={t('news.noMessages')} />
      ) : (
        <ul className="notice-list" data-testid="messages">
          {items.map((m) => (
            <li key={m.id} className="notice-item" data-testid="message" data-read={m.read ? '1' : '0'} data-kind={m.kind}>
              <button type="button" onClick={() => read(m)} aria-label={m.read ? undefined : `${t('news.unread')}: ${m.title}`}>
                <span className="notice-item__head">
                  {!m.read && <span className="notice-item__dot" aria-hidden="true" />}
                  <span>{m.title}</span>
                  {!m.read && <span className="notice-item__tag">{t('news.unread')}</span>}
                </span>
                <p className="notice-item__text">{m.content}</p>
                <div className="notice-item__time">{when(m.created_at)}</div>
              </button>
            </li>
          ))}
        </ul>
      )}
      {more && items.length < total && (
        <button type="button" className="button button--block" onClick={list.loadMore} disabled={busy}>
          {t('common.loadMore')}
        </button>
      )}
    </section>
  );
}

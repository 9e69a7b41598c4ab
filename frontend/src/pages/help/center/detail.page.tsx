import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { get, unanswered } from '../../../api/client';
import type { FaqArticle } from '../../../api/promotion';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Page } from '../../../components/page';
import '../help.css';

/** `help/center/detail?id=`: one FAQ article of the news CMS (`newsArticle/detailed`), its body already sanitised by the server. */
export function HelpDetailPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  // undefined: asked for; null: no such article (none named, or the server refused it); 'failed': no
  // answer (the network, a server error): a retry is offered.
  const [article, setArticle] = useState<FaqArticle | null | 'failed' | undefined>(undefined);
  const load = useCallback(() => {
    if (!id) return setArticle(null);
    setArticle(undefined);
    get<FaqArticle>('newsArticle/detailed', { id }, { quiet: true }).then(setArticle, (err: unknown) => setArticle(unanswered(err) ? 'failed' : null));
  }, [id]);
  useEffect(load, [load]);
  return (
    <Page title={t(titleKey)} className="help">
      {article === undefined ? (
        <Skeleton rows={4} />
      ) : article === 'failed' ? (
        <LoadFailed onRetry={load} />
      ) : article === null ? (
        <Empty text={t('help.articleMissing')} />
      ) : (
        <article className="card">
          <h2>{article.title}</h2>
          {/* Rendered from safe Markdown and sanitised by the CMS (news module). */}
          <div className="help__article" dangerouslySetInnerHTML={{ __html: article.content ?? article.summary }} />
        </article>
      )}
    </Page>
  );
}

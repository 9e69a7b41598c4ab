import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { get } from '../../../api/client';
import type { FaqArticle } from '../../../api/promotion';
import { Empty, Skeleton } from '../../../components/feedback';
import { Page } from '../../../components/page';
import '../help.css';

/** `help/center/detail?id=`: one FAQ article of the news CMS (`newsArticle/detailed`), its body already sanitised by the server. */
export function HelpDetailPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [article, setArticle] = useState<FaqArticle | null | undefined>(undefined);
  useEffect(() => {
    if (!id) return setArticle(null);
    get<FaqArticle>('newsArticle/detailed', { id }, { quiet: true }).then(setArticle, () => setArticle(null));
  }, [id]);
  return (
    <Page title={t(titleKey)} className="help">
      {article === undefined ? (
        <Skeleton rows={4} />
      ) : article === null ? (
        <Empty text={t('help.faqEmpty')} />
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

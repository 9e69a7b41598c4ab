import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { FEEDBACK_CATEGORIES, helpApi, type FaqArticle, type Feedback, type FeedbackCategory } from '../../../api/promotion';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { SelectField } from '../../../components/form';
import { ImageUpload, useUploading } from '../../../components/image-upload';
import { Page } from '../../../components/page';
import { useSessionStore } from '../../../stores/session.store';
import { toast } from '../../../stores/toast.store';
import '../help.css';
import { formatTime } from '../../../components/format';

/**
 * `help/center/center` (spec §2, §3 "Help centre: feedback, online service, FAQ"): the online
 * service entry (the in-app chat, or the operator's external address from get/customer_url), the
 * FAQ from the news CMS (its `faq` category), and the feedback form with the user's past feedback
 * and the operators' replies.
 */
export function HelpCenterPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  // Visitors read the FAQ; their feedback history needs a login (sending asks for one).
  const token = useSessionStore((st) => st.token);
  const [service, setService] = useState<{ type: 'chat' | 'external'; url: string } | null>(null);
  // undefined while loading, null when the load failed.
  const [faq, setFaq] = useState<FaqArticle[] | null | undefined>(undefined);
  const [open, setOpen] = useState<number | null>(null);
  const [mine, setMine] = useState<Feedback[] | null | undefined>(undefined);
  const [category, setCategory] = useState<FeedbackCategory>('account');
  const [content, setContent] = useState('');
  const [image, setImage] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The feedback carries a client id, kept for a retry of the same feedback after an answer that never came.
  const { busy, run } = useMoneySubmit('help-feedback');
  const { uploading, onUploading } = useUploading();

  const loadMine = async () => {
    if (!token) return setMine([]);
    await helpApi.myFeedback().then(
      (r) => setMine(r.items),
      () => setMine(null),
    );
  };
  const loadFaq = () => {
    setFaq(undefined);
    helpApi.faq().then(
      (r) => setFaq(r.items),
      () => setFaq(null),
    );
  };
  useEffect(() => {
    helpApi.customerUrl().then(setService, () => setService({ type: 'chat', url: '' }));
    loadFaq();
    void loadMine();
  }, [token]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const text = content.trim();
    if (text.length < 5 || text.length > 1000) return setError(t('help.contentLength'));
    try {
      const request = { category, content: text, image: image || undefined };
      if (!(await run(request, (clientId) => helpApi.feedback({ ...request, client_id: clientId })))) return;
      toast(t('help.feedbackSent'));
      setContent('');
      setImage('');
      void loadMine();
    } catch (err) {
      setError(err instanceof Error ? err.message : t('common.error'));
    }
  };

  return (
    <Page title={t(titleKey)} className="help">
      <section className="card help__service">
        <div>
          <h2>{t('help.onlineService')}</h2>
          <p className="muted">{t('help.onlineServiceHint')}</p>
        </div>
        {service?.type === 'external' ? (
          <a className="button button--primary" href={service.url} target="_blank" rel="noopener noreferrer">
            {t('help.contact')}
          </a>
        ) : (
          <Link className="button button--primary" to={PATHS.helpChat} data-testid="open-chat">
            {t('help.contact')}
          </Link>
        )}
      </section>

      <section className="card" aria-label={t('help.faq')}>
        <h2>{t('help.faq')}</h2>
        {faq === undefined ? (
          <Skeleton />
        ) : faq === null ? (
          <LoadFailed onRetry={loadFaq} />
        ) : faq.length === 0 ? (
          <Empty text={t('help.faqEmpty')} />
        ) : (
          <ul className="help__faq">
            {faq.map((a) => (
              <li key={a.id}>
                <button type="button" className="help__question" aria-expanded={open === a.id} onClick={() => setOpen(open === a.id ? null : a.id)}>
                  {a.title}
                </button>
                {open === a.id && (
                  <div className="help__answer">
                    <p>{a.summary}</p>
                    <Link to={`${PATHS.helpDetail}?id=${encodeURIComponent(String(a.id))}`}>{t('help.readMore')}</Link>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <form className="card form" onSubmit={submit} noValidate aria-label={t('help.feedback')}>
        <h2>{t('help.feedback')}</h2>
        <SelectField
          label={t('help.category')}
          name="category"
          value={category}
          onChange={setCategory}
          options={FEEDBACK_CATEGORIES.map((c) => ({ value: c, label: t(`help.categories.${c}`) }))}
        />
        <label className="field">
          <span className="field__label">{t('help.content')}</span>
          <textarea className="field__control help__textarea" value={content} maxLength={1000} rows={4} onChange={(e) => setContent(e.target.value)} placeholder={t('help.contentPlaceholder')} />
          {error && (
            <span className="field__error" role="alert">
              {error}
            </span>
          )}
        </label>
        <ImageUpload label={t('help.image')} value={image} onChange={setImage} onUploading={onUploading} />
        <button type="submit" className="button button--primary button--block" disabled={busy || uploading}>
          {t('common.submit')}
        </button>
      </form>

      <section className="card" aria-label={t('help.myFeedback')}>
        <h2>{t('help.myFeedback')}</h2>
        {mine === undefined ? (
          <Skeleton />
        ) : mine === null ? (
          <LoadFailed
            onRetry={() => {
              setMine(undefined);
              void loadMine();
            }}
          />
        ) : mine.length === 0 ? (
          <Empty />
        ) : (
          <ul className="help__feedback">
            {mine.map((f) => (
              <li key={f.id}>
                <div className="help__feedback-head">
                  <strong>{t(`help.categories.${f.category}`)}</strong>
                  <span className={`status ${f.status === 'replied' ? 'status--passed' : ''}`}>{t(`help.status.${f.status}`)}</span>
                </div>
                <p>{f.content}</p>
                {f.reply && (
                  <p className="help__reply">
                    <span className="muted">{t('help.reply')}</span> {f.reply}
                  </p>
                )}
                <span className="muted small">{formatTime(f.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}

import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { newsApi, type NewsArticle, type NewsBanner } from '../../../api/news';
import { PATHS } from '../../../app/paths';
import '../../notice/notice.css';

const ROTATE_MS = 5000;

/** Where a banner goes: an app route, an article on the notices page, or nowhere. */
export function bannerTarget(b: Pick<NewsBanner, 'link_type' | 'link'>): string | null {
  if (b.link_type === 'route' && b.link.startsWith('/')) return b.link;
  if (b.link_type === 'article' && /^\d+$/.test(b.link)) return `${PATHS.notice}?article=${b.link}`;
  return null;
}

/** The home carousel from the CMS (news/banner); the built-in slide when there is none. */
export function HomeBanner() {
  const { t, i18n } = useTranslation();
  const [banners, setBanners] = useState<NewsBanner[]>([]);
  const [index, setIndex] = useState(0);
  // Rotation stops while the user points at, focuses or picks a slide (WCAG 2.2.2).
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    newsApi.banners().then(setBanners, () => setBanners([]));
  }, [i18n.language]);
  useEffect(() => {
    if (banners.length < 2 || paused) return;
    const timer = setInterval(() => setIndex((i) => (i + 1) % banners.length), ROTATE_MS);
    return () => clearInterval(timer);
  }, [banners.length, paused]);
  if (!banners.length)
    return (
      <section className="banner" aria-labelledby="banner-title">
        <h2 id="banner-title">{t('home.bannerTitle')}</h2>
        <p>{t('home.bannerText')}</p>
      </section>
    );
  const b = banners[index % banners.length];
  const target = bannerTarget(b);
  const slide = (
    <>
      <img src={`.${b.image}`} alt="" />
      <h2 className="news-banner__title">{b.title}</h2>
    </>
  );
  return (
    <section
      className="news-banner"
      aria-roledescription={t('news.carousel')}
      aria-label={t('news.banners')}
      data-testid="home-banner"
      data-banner-id={b.id}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
    >
      {target ? (
        <Link to={target} className="news-banner__link">
          {slide}
        </Link>
      ) : (
        slide
      )}
      {banners.length > 1 && (
        <div className="news-banner__dots">
          {banners.map((x, i) => (
            <button
              key={x.id}
              type="button"
              aria-label={t('news.slide', { n: i + 1, total: banners.length })}
              aria-current={i === index % banners.length}
              onClick={() => {
                setIndex(i);
                setPaused(true);
              }}
            />
          ))}
        </div>
      )}
    </section>
  );
}

/** The notice strip: the newest announcements (pinned first), rotating; the safety notice when there is none. */
export function NoticeStrip() {
  const { t, i18n } = useTranslation();
  const [items, setItems] = useState<NewsArticle[]>([]);
  const [index, setIndex] = useState(0);
  // Held still while pointed at, touched or focused, as the banner is: the link a tap opens is the
  // one read, and a screen reader's link does not change under it (WCAG 2.2.2).
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    newsApi.articles('announcement', 1, 5).then(
      (p) => setItems(p.items),
      () => setItems([]),
    );
  }, [i18n.language]);
  useEffect(() => {
    if (items.length < 2 || paused) return;
    const timer = setInterval(() => setIndex((i) => (i + 1) % items.length), ROTATE_MS);
    return () => clearInterval(timer);
  }, [items.length, paused]);
  const a = items.length ? items[index % items.length] : undefined;
  return (
    <Link
      className="notice-strip"
      to={a ? `${PATHS.notice}?article=${a.id}` : PATHS.notice}
      data-testid="notice-strip"
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onPointerDown={() => setPaused(true)}
      // A touch that ends (a tap, or a scroll that began on the strip) lets it turn again; hover and focus hold it still.
      onPointerUp={(e) => e.pointerType !== 'mouse' && setPaused(false)}
      onPointerCancel={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <span className="notice-strip__label">{t('home.noticeLabel')}</span>
      <span className="notice-strip__text">{a ? a.title : t('home.notice')}</span>
    </Link>
  );
}

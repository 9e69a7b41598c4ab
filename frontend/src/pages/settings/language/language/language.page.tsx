import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../../api/endpoints';
import { setSocketLanguage } from '../../../../api/socket';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';
import { currentLang, HTML_LANG, LANGS, LANGUAGE_NAMES, loadCatalogue, setLanguage, type Lang } from '../../../../i18n/i18n';
import { toast } from '../../../../stores/toast.store';

/** The language page: stored under `lang`, sent as the `lang` header, and told to the server (set/lang). */
export function LanguagePage({ titleKey }: { titleKey: string }) {
  const { t, i18n } = useTranslation();
  const [lang, setLang] = useState<Lang>(currentLang());
  // Two quick taps: only the last one is applied, whichever catalogue arrives first.
  const latest = useRef(0);
  const choose = async (next: Lang) => {
    const mine = ++latest.current;
    setLang(next);
    try {
      // The catalogue first (a download for all but English): a later tap may overtake it.
      await loadCatalogue(next);
      if (mine !== latest.current) return;
      await setLanguage(next);
    } catch {
      if (mine !== latest.current) return;
      setLang(currentLang());
      toast(t('common.networkError'));
      return;
    }
    if (mine !== latest.current) return;
    setSocketLanguage(next);
    // The server answers `{lang}` (its message is not handed on); said in the new language.
    api.setLang(next).then(
      (r) => r.lang === next && toast(i18n.t('settings.languageUpdated')),
      () => undefined,
    );
  };
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <ul className="list" role="radiogroup" aria-label={t(titleKey)}>
          {LANGS.map((code) => (
            <li key={code}>
              <button type="button" role="radio" aria-checked={lang === code} className="list__item" onClick={() => choose(code)} lang={HTML_LANG[code]} data-lang={code}>
                <span>{LANGUAGE_NAMES[code]}</span>
                {lang === code && <Icon name="check" size={20} />}
              </button>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../../api/endpoints';
import { setSocketLanguage } from '../../../../api/socket';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';
import { currentLang, LANGS, LANGUAGE_NAMES, setLanguage, type Lang } from '../../../../i18n/i18n';
import { toast } from '../../../../stores/toast.store';

/** The language page: stored under `lang`, sent as the `lang` header, and told to the server (set/lang). */
export function LanguagePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [lang, setLang] = useState<Lang>(currentLang());
  const choose = async (next: Lang) => {
    setLang(next);
    await setLanguage(next);
    setSocketLanguage(next);
    // Answered in the new language (the header now carries it).
    api.setLang(next).then((r) => typeof r === 'string' && toast(r), () => undefined);
  };
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <ul className="list" role="radiogroup" aria-label={t(titleKey)}>
          {LANGS.map((code) => (
            <li key={code}>
              <button type="button" role="radio" aria-checked={lang === code} className="list__item" onClick={() => choose(code)} lang={code === 'en' ? 'en' : undefined} data-lang={code}>
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

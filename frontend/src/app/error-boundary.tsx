import { Component, type ReactNode } from 'react';
import { t } from '../i18n/i18n';

/** A screen that failed to load (chunk error or timeout) shows a message and a retry, not a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main id="main" className="page center-state">
        <p>{t('common.loadFailed')}</p>
        <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
          {t('common.retry')}
        </button>
      </main>
    );
  }
}

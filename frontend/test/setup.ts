// Component tests: English catalogue, a clean localStorage and no pending toasts per test.
import { initI18n } from '../src/i18n/i18n';

beforeAll(async () => {
  await initI18n('en');
});

afterEach(() => {
  localStorage.clear();
});

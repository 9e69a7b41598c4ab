// Component tests: English catalogue, a clean localStorage and no kept client ids per test.
import { forgetKeptIds } from '../src/components/client-id';
import { initI18n } from '../src/i18n/i18n';

beforeAll(async () => {
  await initI18n('en');
});

afterEach(() => {
  localStorage.clear();
  forgetKeptIds();
});

import { useEffect, useState } from 'react';

interface Settings {
  version: string;
}

/** Placeholder until the app shell lands (issue 6): shows that the API answers. */
export function App() {
  const [version, setVersion] = useState<string>();
  useEffect(() => {
    fetch('./api/settings/get', { method: 'POST', headers: { lang: localStorage.getItem('lang') ?? 'en' } })
      .then((r) => r.json())
      .then((body: { code: number; data: Settings }) => body.code === 1 && setVersion(body.data.version))
      .catch(() => undefined);
  }, []);
  return (
    <main className="placeholder">
      <h1>Kestrel</h1>
      <p>{version ? `v${version}` : '…'}</p>
    </main>
  );
}

/** A request target split at its `?`: the path, and the query string without it ('' when there is none). */
export function splitUrl(url: string | undefined): { path: string; query: string } {
  const u = url ?? '';
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: '' } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

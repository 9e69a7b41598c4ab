/** The invite code of a shared link: `?code=` in the hash route, or in the page URL before the hash. */
export function inviteCodeFrom(routeParams: URLSearchParams, pageSearch = typeof window === 'undefined' ? '' : window.location.search): string {
  return routeParams.get('code') ?? new URLSearchParams(pageSearch).get('code') ?? '';
}

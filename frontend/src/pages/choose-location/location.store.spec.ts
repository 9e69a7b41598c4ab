import { bannerTarget } from '../index/index/home-news';
import { coordinateError, draftOf, osmLink, useLocationStore } from './location.store';

describe('map picker helpers', () => {
  it.each([
    ['22.3193', 90, undefined],
    ['-90', 90, undefined],
    ['180', 180, undefined],
    ['-9.1366', 180, undefined],
    ['', 90, 'required'],
    ['  ', 90, 'required'],
    ['90.5', 90, 'invalid'],
    ['181', 180, 'invalid'],
    ['1e3', 90, 'invalid'],
    ['12.12345678', 90, 'invalid'],
    ['abc', 90, 'invalid'],
  ])('coordinate %p within ±%p → %p', (value, max, expected) => {
    expect(coordinateError(value as string, max as number)).toBe(expected);
  });

  it('links the same place on openstreetmap.org, encoded', () => {
    expect(osmLink('38.7105', '-9.1366')).toBe('https://www.openstreetmap.org/?mlat=38.7105&mlon=-9.1366#map=16/38.7105/-9.1366');
  });

  it('hands a picked place and the saved draft back once', () => {
    const s = useLocationStore.getState();
    s.saveDraft('/pages/verification/basic', { name: 'Mara' });
    s.pick({ lat: '1', lng: '2', address: 'Somewhere 1' });
    expect(useLocationStore.getState().take('/pages/verification/basic')).toEqual({
      picked: { lat: '1', lng: '2', address: 'Somewhere 1' },
      draft: { name: 'Mara' },
    });
    expect(useLocationStore.getState().take('/pages/verification/basic')).toEqual({ picked: null, draft: null });
    expect(useLocationStore.getState().current).toEqual({ lat: '1', lng: '2', address: 'Somewhere 1' });
  });

  it("gives a form's draft (its upload ids) to that form only; another form drops it", () => {
    useLocationStore.getState().saveDraft('/pages/verification/basic', { front: 'upload-1' });
    expect(draftOf(useLocationStore.getState().draft, '/pages/verification/advanced')).toBeNull();
    expect(useLocationStore.getState().take('/pages/verification/advanced')).toEqual({ picked: null, draft: null });
    expect(useLocationStore.getState().take('/pages/verification/basic')).toEqual({ picked: null, draft: null });
  });
});

describe('banner links', () => {
  it('opens an app route or an article on the notices page, nothing else', () => {
    expect(bannerTarget({ link_type: 'route', link: '/pages/promotion/index' })).toBe('/pages/promotion/index');
    expect(bannerTarget({ link_type: 'article', link: '12' })).toBe('/pages/notice/index?article=12');
    expect(bannerTarget({ link_type: 'route', link: 'https://evil.example' })).toBeNull();
    expect(bannerTarget({ link_type: 'article', link: 'x' })).toBeNull();
    expect(bannerTarget({ link_type: 'none', link: '' })).toBeNull();
  });
});

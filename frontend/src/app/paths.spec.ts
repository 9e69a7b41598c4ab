import { ROUTES } from './routes';
import { isTabPath, loginPath, PATHS, TABS } from './paths';

// Spec §2, written out again so a changed path fails here.
const SPEC_PATHS = `/ /pages/index/index /pages/trade/index /pages/trade/kline /pages/lever/index /pages/lever/index2 /pages/lever/index3
/pages/option/detail /pages/option/details /pages/option/details2 /pages/user/login/login /pages/user/login/register /pages/user/login/choose
/pages/user/login/forgetPassword /pages/settings/index /pages/settings/language/language /pages/settings/account/index /pages/settings/security/index
/pages/settings/security/changePassword /pages/settings/security/changePayPassword /pages/notice/index /pages/template/index /pages/template/ieo
/pages/template/ieoBuy/ieoBuy /pages/template/ieoBuy/ieoDetails/ieoDetails /pages/verification/index /pages/verification/basic /pages/verification/advanced
/pages/assets/index /pages/assets/tradeAccount /pages/assets/record /pages/assets/transfer/index /pages/assets/transfer/record /pages/assets/deposit/index
/pages/assets/deposit/charge /pages/assets/deposit/redirect /pages/assets/withdraw/index /pages/assets/withdraw/detail /pages/user/address/address
/pages/user/address/create /pages/user/address/index /pages/finance/index /pages/finance/index_lc /pages/finance/buyPage /pages/finance/ordersPage
/pages/finance/rulePage /pages/finance/rulePage_lc /pages/promotion/index /pages/help/center/center /pages/help/center/chat /pages/help/center/detail
/pages/help-center/center /pages/help-center/chat /pages/help-center/detail /pages/fpjy/fpjy /pages/nft/index /pages/nft/order /pages/nft/detail
/pages/loan/index /pages/loan/order /pages/loan/back /pages/loan/back_rec /pages/rate/index /choose-location /open-location`.split(/\s+/);
// Additions beyond the spec, each documented in docs/architecture.md.
const ADDED = ['/pages/market/index', '/integrity', '/proof'];

describe('routes', () => {
  it('registers every path of the spec and the documented additions, exactly once', () => {
    expect(ROUTES.map((r) => r.path).sort()).toEqual([...SPEC_PATHS, ...ADDED].sort());
  });

  it('gives each tab its own screen; lever/index2 still opens the contract screen', () => {
    expect(TABS.map((t) => t.path)).toEqual([PATHS.home, PATHS.market, PATHS.trade, PATHS.lever, PATHS.assets]);
    const screen = (path: string) => ROUTES.find((r) => r.path === path)!.Screen;
    expect(new Set(TABS.map((t) => screen(t.path))).size).toBe(TABS.length);
    expect(screen(PATHS.lever2)).toBe(screen(PATHS.lever));
    expect(isTabPath(PATHS.market)).toBe(true);
  });

  it('login links carry backpage encoded and backtype 2 for tab pages, 1 otherwise', () => {
    expect(loginPath('/pages/trade/index')).toBe('/pages/user/login/login?backpage=%2Fpages%2Ftrade%2Findex&backtype=2');
    expect(loginPath('/pages/option/detail?id=3')).toBe('/pages/user/login/login?backpage=%2Fpages%2Foption%2Fdetail%3Fid%3D3&backtype=1');
    expect(loginPath('/pages/user/login/register')).toBe('/pages/user/login/login');
    expect(isTabPath('/pages/index/index')).toBe(true);
  });
});

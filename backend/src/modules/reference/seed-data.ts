/** Reference data a fresh install needs (issue 2). Upserted on every start; operator edits to other columns stay. */
export const COINS = [
  { id: 1, symbol: 'BTC', name: 'Bitcoin', displayDecimals: 8, minDeposit: '0.0005', minWithdraw: '0.001', withdrawFee: '0.0005', sort: 2 },
  { id: 2, symbol: 'ETH', name: 'Ethereum', displayDecimals: 8, minDeposit: '0.01', minWithdraw: '0.01', withdrawFee: '0.005', sort: 3 },
  { id: 3, symbol: 'USDT', name: 'Tether USD', displayDecimals: 4, minDeposit: '10', minWithdraw: '10', withdrawFee: '1', sort: 1 },
];

export const CHAINS: Array<{ currencyId: number; chain: string }> = [
  { currencyId: 3, chain: 'TRC20' },
  { currencyId: 3, chain: 'OMNI' },
  { currencyId: 3, chain: 'ERC20' },
  { currencyId: 3, chain: 'BEP20' },
  { currencyId: 1, chain: 'OMNI' },
  { currencyId: 1, chain: 'BITCOIN' },
  { currencyId: 2, chain: 'ERC20' },
];

export const MARKETS = [
  { symbol: 'BTC/USDT', baseCurrencyId: 1, quoteCurrencyId: 3, tickSize: '0.01', lotSize: '0.00001', minQty: '0.0001', makerFee: '0.001', takerFee: '0.001', sort: 1 },
  { symbol: 'ETH/USDT', baseCurrencyId: 2, quoteCurrencyId: 3, tickSize: '0.01', lotSize: '0.0001', minQty: '0.001', makerFee: '0.001', takerFee: '0.001', sort: 2 },
];

/** [iso, dial code, English name]; the first ones are the app's main markets, listed first. */
export const AREA_CODES: Array<[string, string, string]> = [
  ['US', '1', 'United States'], ['CN', '86', 'China'], ['HK', '852', 'Hong Kong'], ['TW', '886', 'Taiwan'], ['JP', '81', 'Japan'],
  ['KR', '82', 'South Korea'], ['TH', '66', 'Thailand'], ['BR', '55', 'Brazil'], ['PT', '351', 'Portugal'], ['GB', '44', 'United Kingdom'],
  ['CA', '1', 'Canada'], ['AU', '61', 'Australia'], ['SG', '65', 'Singapore'], ['MY', '60', 'Malaysia'], ['ID', '62', 'Indonesia'],
  ['PH', '63', 'Philippines'], ['VN', '84', 'Vietnam'], ['IN', '91', 'India'], ['AE', '971', 'United Arab Emirates'], ['SA', '966', 'Saudi Arabia'],
  ['TR', '90', 'Turkey'], ['DE', '49', 'Germany'], ['FR', '33', 'France'], ['ES', '34', 'Spain'], ['IT', '39', 'Italy'],
  ['NL', '31', 'Netherlands'], ['CH', '41', 'Switzerland'], ['RU', '7', 'Russia'], ['UA', '380', 'Ukraine'], ['PL', '48', 'Poland'],
  ['MX', '52', 'Mexico'], ['AR', '54', 'Argentina'], ['CO', '57', 'Colombia'], ['CL', '56', 'Chile'], ['NG', '234', 'Nigeria'],
  ['ZA', '27', 'South Africa'], ['EG', '20', 'Egypt'], ['KE', '254', 'Kenya'], ['MO', '853', 'Macau'], ['AO', '244', 'Angola'],
  ['MZ', '258', 'Mozambique'], ['NZ', '64', 'New Zealand'],
];

/** Pricing currencies shown in settings; starting rates per 1 USD (= 1 USDT), for operators to keep current. */
export const FIAT_RATES = [
  { code: 'USD', name: 'US dollar', symbol: '$', rate: '1', sort: 1 },
  { code: 'CNY', name: 'Chinese yuan', symbol: '¥', rate: '7.12', sort: 2 },
  { code: 'EUR', name: 'Euro', symbol: '€', rate: '0.86', sort: 3 },
  { code: 'JPY', name: 'Japanese yen', symbol: '¥', rate: '154.5', sort: 4 },
  { code: 'KRW', name: 'South Korean won', symbol: '₩', rate: '1465', sort: 5 },
  { code: 'THB', name: 'Thai baht', symbol: '฿', rate: '32.4', sort: 6 },
  { code: 'HKD', name: 'Hong Kong dollar', symbol: 'HK$', rate: '7.78', sort: 7 },
  { code: 'BRL', name: 'Brazilian real', symbol: 'R$', rate: '5.33', sort: 8 },
];

/** Option delivery times (microtrade/seconds); operators change them with POST admin/option-periods. */
export const OPTION_PERIODS = [
  { seconds: 30, profitRatio: '0.2', minQty: '10', maxQty: '10000', feeRate: '0' },
  { seconds: 60, profitRatio: '0.3', minQty: '10', maxQty: '20000', feeRate: '0' },
  { seconds: 120, profitRatio: '0.4', minQty: '10', maxQty: '50000', feeRate: '0' },
  { seconds: 300, profitRatio: '0.5', minQty: '10', maxQty: '100000', feeRate: '0' },
];

/** Contract rules per market (lever/deal): a lot is 100 USDT of notional; maintenance 0.5% of it; fee 0.1%. */
export const LEVER_CONFIGS = [
  { symbol: 'BTC/USDT', multiples: [5, 10, 20, 50, 100], lotValue: '100', minLots: 1, maxLots: 1000, feeRate: '0.001', maintenanceRate: '0.005' },
  { symbol: 'ETH/USDT', multiples: [5, 10, 20, 50, 100], lotValue: '100', minLots: 1, maxLots: 1000, feeRate: '0.001', maintenanceRate: '0.005' },
];

import { LEDGER_CODES, LedgerCode, ledgerCodeName } from './ledger-codes';
import { LANGS } from '../../infra/i18n/catalogue';

describe('ledger codes', () => {
  it('has every code of the spec', () => {
    const spec = [20, 21, 22, 30, 40, 41, 100, 101, 103, 200, 201, 300, 301, 400, 401, 402, 500, 501, 502, 503, 600, 601, 602, 700, 701, 702, 800, 801, 802];
    for (const c of spec) expect(LEDGER_CODES).toContain(c);
  });

  it('names every code in every language', () => {
    for (const lang of LANGS) for (const code of LEDGER_CODES) expect(ledgerCodeName(code, lang)).not.toMatch(/^ledger\./);
    expect(ledgerCodeName(LedgerCode.DepositIncrease, 'en')).toBe('Deposit increase');
    expect(ledgerCodeName(LedgerCode.CoinTradeFee, 'zh')).toBe('币币交易手续费');
  });
});

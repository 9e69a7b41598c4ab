import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { money, moneyString } from '../../infra/money';
import { LedgerCode } from './ledger-codes';

export interface CurrencyTrialBalance {
  currency_id: number;
  symbol: string;
  /** Everything held on the exchange: user accounts and the system's fee account. */
  held_total: string;
  /** What the exchange owes its users: every user account (available + frozen); the proof of liabilities publishes the same per root. */
  user_liabilities: string;
  approved_deposits: string;
  completed_withdrawals: string;
  system_funding: string;
  /** approved deposits − completed withdrawals + system funding (+ any other external flow). */
  net_external_flow: string;
  balanced: boolean;
  negative_accounts: number;
  /** Accounts whose balance differs from the sum of their ledger entries (projection drift). */
  projection_mismatches: number;
}

/**
 * Principle 2, checked: per currency the money held equals the net flow through the external
 * mirror account, no account is negative, and the balance projection equals its ledger.
 */
@Injectable()
export class TrialBalanceService {
  constructor(private readonly dataSource: DataSource) {}

  async compute(): Promise<{ ok: boolean; currencies: CurrencyTrialBalance[] }> {
    // Every figure from one snapshot (one REPEATABLE READ transaction, read only): read on separate
    // connections, a posting committed between two reads showed a balanced ledger as unbalanced.
    const [held, flows, negatives, mismatches, coins, owed] = await this.dataSource.transaction('REPEATABLE READ', async (m) => {
      await m.query('SET TRANSACTION READ ONLY');
      const q = (sql: string, p: unknown[] = []) => m.query(sql, p);
      return [
        await q(`SELECT currency_id, SUM(available + frozen)::text AS total FROM balances WHERE account_type <> 'external' GROUP BY currency_id`),
        await q(
          `SELECT currency_id,
           (-SUM(available_delta + frozen_delta))::text AS net,
           (-SUM(available_delta + frozen_delta) FILTER (WHERE code = $1))::text AS deposits,
           (SUM(available_delta + frozen_delta) FILTER (WHERE code = $2))::text AS withdrawals,
           (-SUM(available_delta + frozen_delta) FILTER (WHERE code = $3))::text AS funding
         FROM ledger_entries WHERE account_type = 'external' GROUP BY currency_id`,
          [LedgerCode.DepositIncrease, LedgerCode.WithdrawalDeduction, LedgerCode.SystemFunding],
        ),
        await q(`SELECT currency_id, COUNT(*)::int AS n FROM balances WHERE account_type <> 'external' AND (available < 0 OR frozen < 0) GROUP BY currency_id`),
        await q(
          `SELECT COALESCE(b.currency_id, e.currency_id) AS currency_id, COUNT(*)::int AS n
         FROM balances b
         FULL JOIN (SELECT owner_type, owner_id, account_type, currency_id, SUM(available_delta) AS a, SUM(frozen_delta) AS f
                    FROM ledger GROUP BY 1, 2, 3, 4) e
           ON b.owner_type = e.owner_type AND b.owner_id = e.owner_id AND b.account_type = e.account_type AND b.currency_id = e.currency_id
         WHERE COALESCE(b.available, 0) <> COALESCE(e.a, 0) OR COALESCE(b.frozen, 0) <> COALESCE(e.f, 0)
         GROUP BY 1`,
        ),
        await q(`SELECT id, symbol FROM coins`),
        await q(`SELECT currency_id, SUM(available + frozen)::text AS total FROM balances WHERE owner_type = 'user' GROUP BY currency_id`),
      ];
    });
    const by = <T extends { currency_id: number }>(rows: T[]) => new Map(rows.map((r) => [Number(r.currency_id), r]));
    const heldBy = by(held as Array<{ currency_id: number; total: string }>);
    const flowBy = by(flows as Array<{ currency_id: number; net: string; deposits: string | null; withdrawals: string | null; funding: string | null }>);
    const negBy = by(negatives as Array<{ currency_id: number; n: number }>);
    const misBy = by(mismatches as Array<{ currency_id: number; n: number }>);
    const owedBy = by(owed as Array<{ currency_id: number; total: string }>);
    const symbols = new Map((coins as Array<{ id: number; symbol: string }>).map((c) => [c.id, c.symbol]));
    const ids = new Set<number>([...symbols.keys(), ...heldBy.keys(), ...flowBy.keys()]);

    const currencies = [...ids]
      .sort((a, b) => a - b)
      .map((id): CurrencyTrialBalance => {
        const total = money(heldBy.get(id)?.total ?? '0');
        const f = flowBy.get(id);
        const net = money(f?.net ?? '0');
        const negative = negBy.get(id)?.n ?? 0;
        const mismatch = misBy.get(id)?.n ?? 0;
        return {
          currency_id: id,
          symbol: symbols.get(id) ?? String(id),
          held_total: moneyString(total),
          user_liabilities: moneyString(owedBy.get(id)?.total ?? '0'),
          approved_deposits: moneyString(f?.deposits ?? '0'),
          completed_withdrawals: moneyString(f?.withdrawals ?? '0'),
          system_funding: moneyString(f?.funding ?? '0'),
          net_external_flow: moneyString(net),
          balanced: total.equals(net) && negative === 0 && mismatch === 0,
          negative_accounts: negative,
          projection_mismatches: mismatch,
        };
      });
    return { ok: currencies.every((c) => c.balanced), currencies };
  }
}

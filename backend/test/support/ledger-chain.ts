import type { DataSource } from 'typeorm';

/** An entry whose balance after does not follow from its account's previous one (or the account's last, from its balance). */
export interface BrokenLink {
  owner_type: string;
  owner_id: number;
  account_type: string;
  currency_id: number;
  id: string | null;
}

/**
 * Each account's ledger in id order, read through the view `ledger` (a spot trade's legs come from
 * its row): every entry's balance after is the previous entry's plus its own change, and the last
 * one's is the account's balance. So a leg given the wrong place (id) in the ledger's order, or a
 * wrong balance after, shows here. Answers the entries where it breaks: none when all is well.
 */
export function brokenLedgerChains(ds: Pick<DataSource, 'query'>): Promise<BrokenLink[]> {
  return ds.query(
    `SELECT owner_type, owner_id, account_type, currency_id, id::text FROM (
       SELECT e.*, LAG(available_after) OVER w AS prev_available, LAG(frozen_after) OVER w AS prev_frozen
       FROM ledger e WINDOW w AS (PARTITION BY owner_type, owner_id, account_type, currency_id ORDER BY id)) x
     WHERE prev_available IS NOT NULL AND (available_after <> prev_available + available_delta OR frozen_after <> prev_frozen + frozen_delta)
     UNION ALL
     SELECT b.owner_type, b.owner_id, b.account_type, b.currency_id, NULL FROM balances b
     JOIN LATERAL (SELECT available_after, frozen_after FROM ledger e
                   WHERE e.owner_type = b.owner_type AND e.owner_id = b.owner_id AND e.account_type = b.account_type AND e.currency_id = b.currency_id
                   ORDER BY id DESC LIMIT 1) last ON true
     WHERE last.available_after <> b.available OR last.frozen_after <> b.frozen`,
  );
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hashPassword, verifyPassword } from '../../infra/auth/password';
import { TokenService } from '../../infra/auth/token.service';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { DEFAULT_APP_SETTINGS } from '../settings/settings.service';
import { AREA_CODES, CHAINS, COINS, FIAT_RATES, LEVER_CONFIGS, MARKETS, OPTION_PERIODS } from './seed-data';

/** Idempotent reference data and the first operator account. Runs after migrations on every start. */
@Injectable()
export class SeedService {
  private readonly logger = new Logger('Seed');
  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async seed(): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['kestrel:seed']);
      for (const c of COINS) {
        await m.query(
          `INSERT INTO coins (id, symbol, name, display_decimals, min_deposit, min_withdraw, withdraw_fee, sort) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (id) DO NOTHING`,
          [c.id, c.symbol, c.name, c.displayDecimals, c.minDeposit, c.minWithdraw, c.withdrawFee, c.sort],
        );
      }
      for (const c of CHAINS) {
        await m.query(`INSERT INTO chain_types (currency_id, chain) VALUES ($1, $2) ON CONFLICT (currency_id, chain) DO NOTHING`, [c.currencyId, c.chain]);
      }
      for (const mk of MARKETS) {
        await m.query(
          `INSERT INTO markets (symbol, base_currency_id, quote_currency_id, tick_size, lot_size, min_qty, maker_fee, taker_fee, sort)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (symbol) DO NOTHING`,
          [mk.symbol, mk.baseCurrencyId, mk.quoteCurrencyId, mk.tickSize, mk.lotSize, mk.minQty, mk.makerFee, mk.takerFee, mk.sort],
        );
      }
      for (const [i, [iso, dial, name]] of AREA_CODES.entries()) {
        await m.query(`INSERT INTO area_codes (iso, dial_code, name, sort) VALUES ($1, $2, $3, $4) ON CONFLICT (iso) DO NOTHING`, [iso, dial, name, i]);
      }
      for (const r of FIAT_RATES) {
        await m.query(`INSERT INTO fiat_rates (code, name, symbol, rate, sort) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (code) DO NOTHING`, [r.code, r.name, r.symbol, r.rate, r.sort]);
      }
      for (const p of OPTION_PERIODS) {
        await m.query(`INSERT INTO option_periods (seconds, profit_ratio, min_qty, max_qty, fee_rate, sort) VALUES ($1, $2, $3, $4, $5, $1) ON CONFLICT (seconds) DO NOTHING`, [
          p.seconds,
          p.profitRatio,
          p.minQty,
          p.maxQty,
          p.feeRate,
        ]);
      }
      for (const c of LEVER_CONFIGS) {
        await m.query(
          `INSERT INTO lever_configs (market_id, multiples, lot_value, min_lots, max_lots, fee_rate, maintenance_rate)
           SELECT id, $2, $3, $4, $5, $6, $7 FROM markets WHERE symbol = $1 ON CONFLICT (market_id) DO NOTHING`,
          [c.symbol, JSON.stringify(c.multiples), c.lotValue, c.minLots, c.maxLots, c.feeRate, c.maintenanceRate],
        );
      }
      await m.query(`INSERT INTO settings (key, value) VALUES ('app', $1) ON CONFLICT (key) DO NOTHING`, [JSON.stringify(DEFAULT_APP_SETTINGS)]);
      await this.seedAdmin(m);
    });
  }

  private async seedAdmin(m: import('typeorm').EntityManager): Promise<void> {
    const email = (this.config.adminEmail ?? 'admin@kestrel.local').trim().toLowerCase();
    const [{ n }] = await m.query('SELECT COUNT(*)::int AS n FROM admins');
    const [existing] = await m.query('SELECT id, password_hash FROM admins WHERE email = $1', [email]);
    if (existing) return this.rotateAdminPassword(m, email, existing);
    if (n > 0 && !this.config.adminEmail) return;
    const generated = !this.config.adminPassword;
    const password = this.config.adminPassword ?? randomBytes(12).toString('base64url');
    await m.query('INSERT INTO admins (email, password_hash) VALUES ($1, $2)', [email, await hashPassword(password)]);
    if (generated) {
      // Printed once, on the start that creates the account; only its hash is kept.
      process.stdout.write(`\n  Kestrel operator account created: ${email}\n  Password (shown only now): ${password}\n  Set ADMIN_EMAIL/ADMIN_PASSWORD to choose your own.\n\n`);
    } else {
      this.logger.log(`operator account ${email} created from ADMIN_EMAIL/ADMIN_PASSWORD`);
    }
  }

  /**
   * ADMIN_PASSWORD is the operator's password on every start, not only the first: when it no longer
   * matches the stored hash (changed, or the account was created with another one), the hash is
   * replaced and every session of that operator ends, so a leaked password or token is shut out by
   * setting a new one and restarting (docs/operations.md). Unset, the stored password stays.
   */
  private async rotateAdminPassword(m: import('typeorm').EntityManager, email: string, admin: { id: number; password_hash: string }): Promise<void> {
    const password = this.config.adminPassword;
    if (password === undefined || (await verifyPassword(admin.password_hash, password))) return;
    await m.query('UPDATE admins SET password_hash = $2 WHERE id = $1', [admin.id, await hashPassword(password)]);
    await this.tokens.revokeAll('admin', admin.id, undefined, m);
    this.logger.warn(`operator account ${email}: password replaced from ADMIN_PASSWORD, all its sessions ended`);
  }
}

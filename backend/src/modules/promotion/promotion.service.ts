import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import type { Lang } from '../../infra/i18n/catalogue';
import { translate } from '../../infra/i18n/i18n';
import { moneyString } from '../../infra/money';
import { PromotionSettingsService } from './promotion-settings.service';
import { maskAccount } from './promotion-terms';

/** The route a shared link opens (the registration screen reads `?code=`). */
export const REGISTER_ROUTE = '/#/pages/user/login/register';
/** Totals shown as one number are in USDT (contracts and options pay fees in USDT; other coins are listed per currency). */
const USDT = 'USDT';
const AUTH_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

const num = (v: string | null | undefined) => moneyString(v ?? '0');

@Injectable()
export class PromotionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly settings: PromotionSettingsService,
  ) {}

  link(origin: string, code: string): string {
    return `${origin.replace(/\/+$/, '')}${REGISTER_ROUTE}?code=${encodeURIComponent(code)}`;
  }

  private async me(userId: number): Promise<{ id: number; invite_code: string; inviter_id: number | null; partner: boolean; auth_code: string | null }> {
    const [u] = await this.dataSource.query(
      `SELECT u.id, u.invite_code, u.inviter_id, COALESCE(p.partner, false) AS partner, CASE WHEN p.partner THEN p.auth_code END AS auth_code
       FROM users u LEFT JOIN promotion_partners p ON p.user_id = u.id WHERE u.id = $1`,
      [userId],
    );
    if (!u) throw new BusinessError(ErrorCode.NOT_LOGGED_IN);
    return u;
  }

  /** Rebate totals per currency (paid + pending, and pending). */
  private async totals(userId: number): Promise<Array<{ currency: string; total: string; pending: string }>> {
    const rows: Array<{ currency: string; total: string; pending: string }> = await this.dataSource.query(
      `SELECT c.symbol AS currency, SUM(r.amount)::text AS total, COALESCE(SUM(r.amount) FILTER (WHERE r.status = 'pending'), 0)::text AS pending
       FROM promotion_rebates r JOIN coins c ON c.id = r.currency_id WHERE r.inviter_id = $1 GROUP BY c.symbol ORDER BY c.symbol`,
      [userId],
    );
    return rows.map((r) => ({ currency: r.currency, total: num(r.total), pending: num(r.pending) }));
  }

  /** user/invite */
  async invite(userId: number, origin: string) {
    const u = await this.me(userId);
    const s = await this.settings.get();
    const [{ count }] = await this.dataSource.query('SELECT count(*)::int AS count FROM users WHERE inviter_id = $1', [userId]);
    const rebates = await this.totals(userId);
    const usdt = rebates.find((r) => r.currency === USDT);
    return {
      invite_code: u.invite_code,
      link: this.link(origin, u.invite_code),
      partner: u.partner,
      auth_code: u.auth_code,
      ratio: moneyString(u.partner ? s.partner_ratio : s.ratio),
      promoted_count: count as number,
      total_rebate: usdt?.total ?? '0',
      pending_rebate: usdt?.pending ?? '0',
      rebate_currency: USDT,
      rebates,
    };
  }

  /** user/invite_list: the users I invited, masked, with what each earned me. */
  async inviteList(userId: number, page: number, limit: number): Promise<Page<{ account: string; registered_at: string; verified: boolean; rebate: string }>> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT u.account, u.created_at, u.verification_level,
                COALESCE((SELECT SUM(r.amount) FROM promotion_rebates r JOIN coins c ON c.id = r.currency_id WHERE r.invitee_id = u.id AND r.inviter_id = $1 AND c.symbol = '${USDT}'), 0)::text AS rebate
         FROM users u WHERE u.inviter_id = $1 ORDER BY u.id DESC LIMIT $2 OFFSET $3`,
        [userId, limit, (page - 1) * limit],
      ),
      this.dataSource.query('SELECT count(*)::int AS total FROM users WHERE inviter_id = $1', [userId]),
    ]);
    return {
      items: rows.map((r: { account: string; created_at: Date; verification_level: number; rebate: string }) => ({
        account: maskAccount(r.account),
        registered_at: new Date(r.created_at).toISOString(),
        verified: r.verification_level > 0,
        rebate: num(r.rebate),
      })),
      total,
      page,
      limit,
    };
  }

  /** user/myInvite: who invited me, whether that is a partner (I am then a partner's sub-account), and my own partner status. */
  async myInvite(userId: number) {
    const u = await this.me(userId);
    const s = await this.settings.get();
    let inviter: { account: string; invite_code: string; partner: boolean } | null = null;
    if (u.inviter_id !== null) {
      const [i] = await this.dataSource.query(
        `SELECT u.account, u.invite_code, COALESCE(p.partner, false) AS partner FROM users u LEFT JOIN promotion_partners p ON p.user_id = u.id WHERE u.id = $1`,
        [u.inviter_id],
      );
      if (i) inviter = { account: maskAccount(i.account), invite_code: i.invite_code, partner: i.partner };
    }
    return {
      inviter,
      sub_account: inviter?.partner === true,
      partner: u.partner,
      auth_code: u.auth_code,
      ratio: moneyString(u.partner ? s.partner_ratio : s.ratio),
      can_bind: u.inviter_id === null,
    };
  }

  /** user/my_account_return: my rebate records, newest first. */
  async records(userId: number, page: number, limit: number) {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT r.id::text, r.kind, c.symbol AS currency, r.fee::text, r.ratio::text, r.amount::text, r.status, r.created_at, r.paid_at, u.account
         FROM promotion_rebates r JOIN coins c ON c.id = r.currency_id JOIN users u ON u.id = r.invitee_id
         WHERE r.inviter_id = $1 ORDER BY r.id DESC LIMIT $2 OFFSET $3`,
        [userId, limit, (page - 1) * limit],
      ),
      this.dataSource.query('SELECT count(*)::int AS total FROM promotion_rebates WHERE inviter_id = $1', [userId]),
    ]);
    return {
      items: rows.map(
        (r: {
          id: string;
          kind: string;
          currency: string;
          fee: string;
          ratio: string;
          amount: string;
          status: string;
          created_at: Date;
          paid_at: Date | null;
          account: string;
        }) => ({
          id: r.id,
          kind: r.kind,
          currency: r.currency,
          fee: num(r.fee),
          ratio: num(r.ratio),
          amount: num(r.amount),
          status: r.status,
          invitee: maskAccount(r.account),
          created_at: new Date(r.created_at).toISOString(),
          paid_at: r.paid_at ? new Date(r.paid_at).toISOString() : null,
        }),
      ),
      total,
      page,
      limit,
    };
  }

  /** user/ranking: the top 10 inviters by USDT rebate (paid and pending), masked. */
  async ranking() {
    const rows: Array<{ account: string; total: string; invited: number }> = await this.dataSource.query(
      `SELECT u.account, t.total::text, (SELECT count(*)::int FROM users x WHERE x.inviter_id = u.id) AS invited
       FROM (SELECT r.inviter_id, SUM(r.amount) AS total FROM promotion_rebates r JOIN coins c ON c.id = r.currency_id
             WHERE c.symbol = '${USDT}' GROUP BY r.inviter_id ORDER BY SUM(r.amount) DESC, r.inviter_id LIMIT 10) t
       JOIN users u ON u.id = t.inviter_id ORDER BY t.total DESC, u.id`,
    );
    return { currency: USDT, items: rows.map((r, i) => ({ rank: i + 1, account: maskAccount(r.account), rebate: num(r.total), invited: r.invited })) };
  }

  /** user/my_share: the text to share and the link. */
  async share(userId: number, origin: string, lang: Lang) {
    const u = await this.me(userId);
    const link = this.link(origin, u.invite_code);
    return { invite_code: u.invite_code, link, text: translate(lang, 'promotion.share_text', { code: u.invite_code, link }) };
  }

  /** user/my_poster: what the poster shows; the app draws it as a PNG (QR code of the link + the code) in the browser. */
  async poster(userId: number, origin: string, lang: Lang) {
    const u = await this.me(userId);
    return {
      invite_code: u.invite_code,
      link: this.link(origin, u.invite_code),
      title: translate(lang, 'promotion.poster_title'),
      subtitle: translate(lang, 'promotion.poster_subtitle'),
      format: 'image/png',
    };
  }

  /**
   * user/bind_auth_code: a user without an inviter becomes the partner's sub-account. A retry (the
   * user's inviter already is the partner this code names) answers as the first call did, changing nothing.
   */
  async bindAuthCode(userId: number, authCode: string) {
    return this.dataSource.transaction(async (m) => {
      // Binds one at a time (they are rare): two partners binding each other's codes at once would
      // each pass the loop check below (neither sees the other's uncommitted link) and form a loop.
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['kestrel:promotion-bind']);
      // Held until the commit: an operator ending the partnership meanwhile waits, or (committed first) is what this reads.
      const [p] = await m.query('SELECT user_id, partner FROM promotion_partners WHERE auth_code = $1 FOR SHARE', [authCode]);
      const [u] = await m.query('SELECT inviter_id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      // A retry: the code names an active partner, or this user was bound to it by this call (the
      // partner flag was cleared since: the first call's answer stands). An ordinary invite by a
      // user whose partnership is not active is no bind: its code stays refused (3000).
      if (p && u.inviter_id === p.user_id) {
        const bound =
          p.partner ||
          (
            await m.query(`SELECT 1 FROM events WHERE stream_id = $1 AND type = 'PartnerSubAccountBound' AND payload->>'partnerId' = $2 LIMIT 1`, [
              `user:${userId}`,
              String(p.user_id),
            ])
          ).length > 0;
        if (bound) return { inviter_id: p.user_id as number };
      }
      if (!p?.partner) throw new BusinessError(ErrorCode.PROMOTION_AUTH_CODE_INVALID);
      const partnerId = p.user_id as number;
      if (partnerId === userId) throw new BusinessError(ErrorCode.PROMOTION_SELF_BIND);
      if (u.inviter_id !== null) throw new BusinessError(ErrorCode.PROMOTION_ALREADY_BOUND);
      // No loops: the partner may not be someone I invited, directly or further down, however deep
      // (the walk ends at a user without an inviter; UNION ends it on a loop already there too).
      const [loop] = await m.query(
        `WITH RECURSIVE up(id) AS (SELECT inviter_id FROM users WHERE id = $1 UNION SELECT u.inviter_id FROM users u JOIN up ON u.id = up.id)
         SELECT 1 FROM up WHERE id = $2 LIMIT 1`,
        [partnerId, userId],
      );
      if (loop) throw new BusinessError(ErrorCode.PROMOTION_SELF_BIND);
      // From now on (the moment it is made, after the waits above, not when this transaction began): the fees paid before the link earn the partner nothing.
      await m.query('UPDATE users SET inviter_id = $2, invited_at = clock_timestamp() WHERE id = $1', [userId, partnerId]);
      await this.events.append(m, { streamId: `user:${userId}`, metadata: { actor: `user:${userId}` } }, [
        { type: 'PartnerSubAccountBound', payload: { userId, partnerId, authCode } },
      ]);
      return { inviter_id: partnerId };
    });
  }

  /** Operators: make a user a partner (issuing an authorization code the first time) or end it. */
  async setPartner(adminId: number, userId: number, partner: boolean, reason: string) {
    return this.dataSource.transaction(async (m) => {
      const [u] = await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (!u) throw new BusinessError(ErrorCode.PROMOTION_USER_NOT_FOUND);
      const [prior] = await m.query('SELECT auth_code, partner FROM promotion_partners WHERE user_id = $1', [userId]);
      // Ending what never began changes nothing: no code is issued, nothing recorded.
      if (!prior && !partner) return { user_id: userId, partner, auth_code: null };
      let authCode: string = prior?.auth_code;
      if (!prior) {
        for (let tries = 0; ; tries++) {
          authCode = 'P' + Array.from({ length: 7 }, () => AUTH_ALPHABET[randomInt(AUTH_ALPHABET.length)]).join('');
          const [taken] = await m.query('SELECT 1 FROM promotion_partners WHERE auth_code = $1', [authCode]);
          if (!taken || tries > 5) break;
        }
        await m.query('INSERT INTO promotion_partners (user_id, partner, auth_code, reason, updated_by) VALUES ($1, $2, $3, $4, $5)', [
          userId,
          partner,
          authCode,
          reason,
          adminId,
        ]);
      } else {
        await m.query('UPDATE promotion_partners SET partner = $2, reason = $3, updated_by = $4, updated_at = now() WHERE user_id = $1', [
          userId,
          partner,
          reason,
          adminId,
        ]);
      }
      await this.events.append(m, { streamId: `user:${userId}`, metadata: { actor: `admin:${adminId}`, reason } }, [
        { type: 'PartnerStatusChanged', payload: { userId, partner, previous: prior?.partner ?? false, authCode } },
      ]);
      return { user_id: userId, partner, auth_code: authCode };
    });
  }

  /** Operators: the partners. */
  async partners() {
    const rows = await this.dataSource.query(
      `SELECT p.user_id, u.account, p.partner, p.auth_code, p.reason, p.updated_by, p.updated_at,
              (SELECT count(*)::int FROM users x WHERE x.inviter_id = p.user_id) AS invited
       FROM promotion_partners p JOIN users u ON u.id = p.user_id ORDER BY p.user_id`,
    );
    return rows;
  }
}

import { randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { SeqCommand, SeqOutcome } from './sequencer/commands';

/** What an api or worker process asks the engine: a sequencer command, or a control request. */
export interface EngineRequest {
  /** Unique per request: the reply's key, and the sequencer's idempotency key for a place without a client id. */
  id: string;
  /** The asking process's reply stream. */
  reply: string;
  cmd?: SeqCommand;
  ctl?: 'markets' | 'stats' | 'mark';
  /** The market of a `mark` request (the price now, recorded by the process holding the books). */
  marketId?: number;
  /**
   * A place's lifetime in ms from its entry into the command stream, and (set by the engine's read)
   * how long it waited there: the engine makes them the place's `notAfter` on its own batch clock.
   */
  ttlMs?: number;
  waitedMs?: number;
}

export interface EngineReply {
  id: string;
  /** The journal batch that applied the command (its read tables are there once `projected` reaches it). */
  seq?: number;
  outcome?: SeqOutcome;
  /** A control request's answer. */
  result?: unknown;
  /** A refusal (a BusinessError's code: the engine is busy, behind, or stepping down). */
  error?: number;
}

/** Deliveries of one request after which it is set aside in the dead-letter stream instead of tried again. */
const MAX_DELIVERIES = 5;
const GROUP = 'engine';
const READ_COUNT = 1000;
const BLOCK_MS = 1000;
/** Replies kept per api process's stream (bounded), and how long a silent process's stream lives. */
const REPLY_MAXLEN = 10_000;
const REPLY_TTL_S = 300;
/** A forwarded place's deadline, as a share of the asker's timeout (5 s: 4 s). */
const DEADLINE_SHARE = 0.8;

/**
 * The command transport between api/worker processes and the engine (DESIGN §3, "Scale beyond one
 * process"), on Redis Streams: requests go to one stream read by the consumer group `engine` (only
 * the lease holder reads it); each reply goes to the asking process's own stream. A request stays
 * pending until the engine has journaled, applied and answered it (XACK after the reply): when the
 * engine dies in between, the next holder claims the pending requests and runs them again — the
 * sequencer's idempotency window (client order id, command id, or this request's id) gives each
 * exactly one effect. A request delivered MAX_DELIVERIES times goes to the dead-letter stream with
 * its reason. Pub/sub carries the rest: the projector's watermark (read-your-writes in every
 * process), market changes and outbox kicks. Payloads are v8-serialised (bigints, exact).
 */
export class EngineLink {
  private readonly logger = new Logger('EngineLink');
  readonly commands: string;
  readonly dead: string;
  private readonly replyStream: string;
  private readonly channel: string;
  private readonly pub: Redis;
  private reader?: Redis;
  private sub?: Redis;
  private consumer?: Redis;
  private readonly pending = new Map<string, { resolve: (r: EngineReply) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout }>();
  private closed = false;
  private serving = false;
  private serveLoop?: Promise<void>;
  /**
   * Writes gathered in one turn of the event loop and sent as one pipeline: the requests an api
   * process sends, and the replies (with their acknowledgements) the engine sends for a group
   * commit, which all resolve together. One round trip and one socket write for many commands.
   */
  private readonly outgoing: Array<{ write: (p: ReturnType<Redis['pipeline']>) => void; done: (err?: Error) => void }> = [];
  private flushScheduled = false;

  constructor(
    private readonly redisUrl: string,
    prefix: string,
    readonly processId: string,
  ) {
    this.commands = `${prefix}engine:commands`;
    this.dead = `${prefix}engine:dead`;
    this.replyStream = `${prefix}engine:reply:${processId}`;
    this.channel = `${prefix}engine:events`;
    this.pub = this.client();
  }

  private client(): Redis {
    const r = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    r.on('error', (err) => this.logger.warn(`redis: ${err.message}`));
    return r;
  }

  /** Events every process hears: the projector's watermark, market changes, outbox kicks. */
  async listen(on: (e: LinkEvent) => void): Promise<void> {
    this.sub = this.client();
    this.sub.on('message', (_ch, raw) => {
      try {
        on(JSON.parse(raw) as LinkEvent);
      } catch {
        /* a malformed event is ignored */
      }
    });
    await this.sub.subscribe(this.channel);
  }

  publish(e: LinkEvent): void {
    void this.pub.publish(this.channel, JSON.stringify(e)).catch(() => undefined);
  }

  /** Queues writes for this turn's pipeline; resolves once Redis has answered them all. */
  private send(write: (p: ReturnType<Redis['pipeline']>) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outgoing.push({ write, done: (err) => (err ? reject(err) : resolve()) });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.outgoing.splice(0);
    if (!batch.length) return;
    const p = this.pub.pipeline();
    for (const b of batch) b.write(p);
    let err: Error | undefined;
    try {
      const results = await p.exec();
      err = results?.find(([e]) => e)?.[0] ?? undefined;
    } catch (e) {
      err = e as Error;
    }
    for (const b of batch) b.done(err);
  }

  // ---- the asking side (api, worker) ----

  /** Sends a request and waits for the engine's reply; past the timeout: 2107 "result unknown, retry with the same id". */
  async ask(body: { cmd?: SeqCommand; ctl?: EngineRequest['ctl']; marketId?: number }, timeoutMs: number): Promise<EngineReply> {
    if (!this.reader) this.startReplies();
    const req: EngineRequest = { id: randomUUID(), reply: this.replyStream, ...body };
    // A place lives DEADLINE_SHARE of this timeout: one that reaches the sequencer later (left in the
    // stream by a failover) is refused, not placed after its client heard 2107. The margin covers the
    // reply's way back and the journal write of a batch taken just before the deadline.
    if (req.cmd?.t === 'place') {
      if (!req.cmd.clientOrderId) req.cmd = { ...req.cmd, requestId: req.id };
      req.ttlMs = Math.floor(timeoutMs * DEADLINE_SHARE);
    }
    const answer = new Promise<EngineReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(req.id);
        reject(new BusinessError(ErrorCode.ENGINE_UNKNOWN));
      }, timeoutMs);
      this.pending.set(req.id, { resolve, reject, timer });
    });
    try {
      await this.send((p) => p.xadd(this.commands, 'MAXLEN', '~', '1000000', '*', 'p', serialize(req)));
    } catch (err) {
      const p = this.pending.get(req.id);
      if (p) {
        clearTimeout(p.timer);
        this.pending.delete(req.id);
      }
      this.logger.warn(`could not send to the engine: ${(err as Error).message}`);
      throw new BusinessError(ErrorCode.MARKET_BUSY);
    }
    return answer;
  }

  private startReplies(): void {
    this.reader = this.client();
    void (async () => {
      let last = '0';
      while (!this.closed) {
        try {
          const res = (await this.reader!.callBuffer('XREAD', 'COUNT', String(READ_COUNT), 'BLOCK', String(BLOCK_MS), 'STREAMS', this.replyStream, last)) as StreamRead | null;
          for (const [id, reply] of entries<EngineReply>(res)) {
            last = id;
            const p = this.pending.get(reply.id);
            if (!p) continue;
            clearTimeout(p.timer);
            this.pending.delete(reply.id);
            p.resolve(reply);
          }
        } catch (err) {
          if (!this.closed) {
            this.logger.warn(`reply stream: ${(err as Error).message}`);
            await new Promise((r) => setTimeout(r, 200));
          }
        }
      }
    })();
  }

  // ---- the engine side (the lease holder) ----

  /**
   * Reads the command stream as `consumer` until `stopServing`: first the requests a previous holder
   * left pending (claimed; set aside after MAX_DELIVERIES), then new ones. Each request is handed
   * to `handle` at once (they join the sequencer's group commits in arrival order); its reply is
   * sent and the request acknowledged when `handle` resolves.
   */
  serve(consumer: string, handle: (req: EngineRequest) => Promise<EngineReply>): void {
    if (this.serving) return;
    this.serving = true;
    this.consumer = this.client();
    const r = this.consumer;
    const run = async (id: string, req: EngineRequest, redisNow: number) => {
      let reply: EngineReply;
      try {
        reply = await handle(withWait(req, id, redisNow));
      } catch (err) {
        reply = { id: req.id, error: err instanceof BusinessError ? err.code : ErrorCode.MARKET_BUSY };
        if (!(err instanceof BusinessError)) this.logger.error({ err }, 'engine request failed');
      }
      // A refusal because this process stopped being the engine, or a batch of unknown fate it was
      // writing when it stopped, is left pending: the next holder answers it from the journal it
      // replays and its idempotency keys.
      if ((reply.error === ErrorCode.MARKET_BUSY || reply.error === ErrorCode.ENGINE_UNKNOWN) && !this.serving) return;
      // The reply before the acknowledgement (same pipeline, in order): a holder that dies between
      // them leaves the request pending, and the next one answers it again from the sequencer's
      // idempotency window.
      await this.send((p) => p.xadd(req.reply, 'MAXLEN', '~', String(REPLY_MAXLEN), '*', 'p', serialize(reply)).expire(req.reply, REPLY_TTL_S).xack(this.commands, GROUP, id));
    };
    this.serveLoop = (async () => {
      await r.xgroup('CREATE', this.commands, GROUP, '$', 'MKSTREAM').catch((err: Error) => {
        if (!/BUSYGROUP/.test(err.message)) throw err;
      });
      await this.claimLeftovers(consumer, run);
      while (this.serving && !this.closed) {
        try {
          const res = (await r.callBuffer('XREADGROUP', 'GROUP', GROUP, consumer, 'COUNT', String(READ_COUNT), 'BLOCK', String(BLOCK_MS), 'STREAMS', this.commands, '>')) as StreamRead | null;
          const read = [...entries<EngineRequest>(res)];
          // Redis's time only when a place asks for its wait (one round trip for the whole read).
          const now = read.some(([, req]) => req.ttlMs !== undefined) ? await redisTime(r) : 0;
          for (const [id, req] of read) void run(id, req, now).catch((err) => this.logger.warn(`reply failed: ${(err as Error).message}`));
        } catch (err) {
          if (this.serving && !this.closed) {
            this.logger.warn(`command stream: ${(err as Error).message}`);
            await new Promise((res) => setTimeout(res, 200));
          }
        }
      }
    })().catch((err) => this.logger.error({ err }, 'command stream stopped'));
  }

  /** Requests read by a consumer that is gone (the previous holder): claimed and run again, or set aside. */
  private async claimLeftovers(consumer: string, run: (id: string, req: EngineRequest, redisNow: number) => Promise<void>): Promise<void> {
    const r = this.consumer!;
    for (;;) {
      const pending = (await r.xpending(this.commands, GROUP, '-', '+', READ_COUNT)) as Array<[string, string, number, number]>;
      // Nothing of this process is in flight when it starts serving: every pending request is a leftover.
      const theirs = pending;
      if (!theirs.length) return;
      const poison = theirs.filter(([, , , n]) => n >= MAX_DELIVERIES).map(([id]) => id);
      const retry = theirs.filter(([, , , n]) => n < MAX_DELIVERIES).map(([id]) => id);
      if (poison.length) {
        const claimed = (await r.callBuffer('XCLAIM', this.commands, GROUP, consumer, '0', ...poison)) as Array<[Buffer, Buffer[]]>;
        const m = r.multi();
        for (const [id, fields] of claimed) m.xadd(this.dead, '*', 'id', id.toString(), 'reason', `delivered ${MAX_DELIVERIES} times`, 'p', fields[1]);
        m.xack(this.commands, GROUP, ...poison);
        await m.exec();
        this.logger.error(`${poison.length} engine request(s) set aside in ${this.dead}`);
      }
      if (retry.length) {
        const claimed = (await r.callBuffer('XCLAIM', this.commands, GROUP, consumer, '0', ...retry)) as Array<[Buffer, Buffer[]] | null>;
        this.logger.warn(`claimed ${claimed.length} request(s) the previous engine left unanswered`);
        const now = await redisTime(r);
        await Promise.all(claimed.filter((c): c is [Buffer, Buffer[]] => !!c).map(([id, fields]) => run(id.toString(), deserialize(fields[1]) as EngineRequest, now)));
      }
      if (pending.length < READ_COUNT) return;
    }
  }

  async stopServing(): Promise<void> {
    if (!this.serving) return;
    this.serving = false;
    this.consumer?.disconnect();
    this.consumer = undefined;
    await this.serveLoop;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stopServing();
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    }
    this.pending.clear();
    for (const c of [this.reader, this.sub]) c?.disconnect();
    await this.pub.quit().catch(() => this.pub.disconnect());
  }
}

/** `hurry`: a read on an api process waits for the watermark to reach `seq` (the engine's projector stops lingering). */
export type LinkEvent = { kind: 'projected'; seq: number } | { kind: 'markets' } | { kind: 'outbox' } | { kind: 'hurry'; seq: number };

type StreamRead = Array<[Buffer, Array<[Buffer, Buffer[]]>]>;

/** Redis's clock now, in ms (the clock its stream entry ids were made with). */
async function redisTime(r: Redis): Promise<number> {
  const [seconds, micros] = await r.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * How long a request's entry waited in the stream before this read (`waitedMs`), measured on
 * Redis's clock alone: the entry id's time against Redis's time at the read. The engine turns a
 * place's lifetime into its deadline on its own batch clock with it (`EngineHost`), so the api's
 * clock and the engine's are never compared: neither running ahead or behind refuses every order,
 * or lets one through after its client heard 2107.
 */
export function withWait(req: EngineRequest, entryId: string, redisNow: number): EngineRequest {
  if (req.ttlMs === undefined) return req;
  return { ...req, waitedMs: Math.max(0, redisNow - Number(entryId.split('-')[0])) };
}

/** `[id, payload]` of every entry of an XREAD / XREADGROUP answer (field `p`, v8-serialised). */
function* entries<T>(res: StreamRead | null): Generator<[string, T]> {
  if (!res) return;
  for (const [, list] of res)
    for (const [id, fields] of list) {
      const i = fields.findIndex((f) => f.toString() === 'p');
      if (i >= 0) yield [id.toString(), deserialize(fields[i + 1]) as T];
    }
}

/** A unique id for this process (its reply stream and its consumer name). */
export function processId(holder: string): string {
  return holder.replace(/[^A-Za-z0-9:._-]/g, '_');
}

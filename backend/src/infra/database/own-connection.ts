import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

/** A statement that was never sent: the connection could not be opened (or was closed). Nothing happened. */
export class NotSentError extends Error {}

/**
 * One connection of its own to a data source's database, outside its pool: for a statement that
 * must not wait in the pool's queue behind the requests' (the sequencer's lease renewal, which a
 * burst of 600 reads held for 750 ms on a busy machine, past the lease; the journal's appends:
 * docs/architecture.md). Opened by `open` or the first statement; after any error (a broken
 * connection, a statement that ran past `statementMs`) it is dropped, and the next statement opens
 * a new one. Statements run one at a time, in order.
 */
export class OwnConnection {
  private client?: Promise<Client>;
  /** The statement before the next one: each waits for it (one statement on the connection at a time). */
  private last: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: {
      /** Shown in `pg_stat_activity`. */
      applicationName: string;
      /** How long connecting may take (ms). */
      connectMs: number;
      /**
       * How long each statement may take (ms): the server cancels it then (`statement_timeout`, so one
       * that gave up here does not commit later) and the connection is dropped. None: no bound.
       */
      statementMs?: number;
    },
  ) {}

  /** Opens the connection now if it is not open (a statement after a failure here opens it again). */
  async open(): Promise<void> {
    await this.connection();
  }

  /**
   * Rows of a SELECT / RETURNING, and how many rows the statement changed. With `name` a named
   * statement: parsed and planned once on this connection. `NotSentError` when the connection could
   * not be opened.
   */
  query<T>(sql: string, params: unknown[], name?: string): Promise<{ rows: T[]; rowCount: number }> {
    const run = this.last.then(() => this.run<T>(sql, params, name));
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Waits until the statements sent so far have been answered (or failed). Opens nothing. */
  async drain(): Promise<void> {
    await this.last;
  }

  /** Closes the connection for good: later statements fail (`NotSentError`). */
  async close(): Promise<void> {
    this.closed = true;
    await this.drop();
  }

  private async run<T>(sql: string, params: unknown[], name?: string): Promise<{ rows: T[]; rowCount: number }> {
    const client = await this.connection();
    try {
      const r = await client.query({ name, text: sql, values: params });
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    } catch (err) {
      void this.drop(client);
      throw err;
    }
  }

  private connection(): Promise<Client> {
    if (this.closed) return Promise.reject(new NotSentError(`${this.options.applicationName}: the connection is closed`));
    const pending = (this.client ??= this.connect());
    // A failed open is forgotten (the next statement tries again); its statement was not sent.
    return pending.catch((err: Error) => {
      if (this.client === pending) this.client = undefined;
      throw new NotSentError(`${this.options.applicationName}: could not connect (${err.message})`);
    });
  }

  /** Closes the connection (only if it is still `client`, when given: a newer one is kept). */
  private async drop(client?: Client): Promise<void> {
    const pending = this.client;
    if (!pending) return;
    const open = await pending.catch(() => undefined);
    if (client && open !== client) return;
    if (this.client === pending) this.client = undefined;
    await open?.end().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const url = (this.dataSource.options as PostgresDataSourceOptions).url;
    if (!url) throw new Error('the data source has no url');
    const { applicationName, connectMs, statementMs } = this.options;
    const client = new Client({
      connectionString: url,
      application_name: applicationName,
      connectionTimeoutMillis: connectMs,
      statement_timeout: statementMs,
      // A network that stops answering: the server's cancel cannot reach us, so the client gives up a second later.
      query_timeout: statementMs === undefined ? undefined : statementMs + 1000,
      // An idle connection that silently died is found before a statement waits on it for ever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // A connection the server ended reports here too: dropped, the next statement opens another.
    client.on('error', () => void this.drop(client));
    await client.connect();
    return client;
  }
}

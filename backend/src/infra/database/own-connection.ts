import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

/**
 * One connection of its own to a data source's database, outside its pool: for a statement that
 * must not wait in the pool's queue behind the requests' (the sequencer's lease renewal, which a
 * burst of 600 reads held for 750 ms on a busy machine, past the lease; the journal's appends:
 * docs/architecture.md). Opened on first use; after any error (a broken connection, a statement
 * that ran past `statementMs`) it is closed, and the next statement opens a new one.
 */
export class OwnConnection {
  private client?: Promise<Client>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: {
      /** Shown in `pg_stat_activity`. */
      applicationName: string;
      /** How long connecting may take (ms). */
      connectMs: number;
      /** How long each statement may take (ms): past it the statement fails and the connection is dropped. None: no bound. */
      statementMs?: number;
    },
  ) {}

  /**
   * Rows of a SELECT / RETURNING, and how many rows the statement changed. With `name` a named
   * statement: parsed and planned once on this connection.
   */
  async query<T>(sql: string, params: unknown[], name?: string): Promise<{ rows: T[]; rowCount: number }> {
    const pending = (this.client ??= this.open());
    try {
      const r = await (await pending).query({ name, text: sql, values: params });
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    } catch (err) {
      if (this.client === pending) this.drop();
      throw err;
    }
  }

  /** Closes the connection (a later statement opens a new one). */
  async close(): Promise<void> {
    const pending = this.client;
    this.client = undefined;
    await pending?.then((c) => c.end()).catch(() => undefined);
  }

  private drop(): void {
    void this.close();
  }

  private async open(): Promise<Client> {
    const url = (this.dataSource.options as PostgresDataSourceOptions).url;
    if (!url) throw new Error('OwnConnection: the data source has no url');
    const client = new Client({
      connectionString: url,
      application_name: this.options.applicationName,
      connectionTimeoutMillis: this.options.connectMs,
      query_timeout: this.options.statementMs,
    });
    // A connection the server ended reports here too: dropped, the next statement opens another.
    client.on('error', () => {
      if (this.client)
        void this.client.then(
          (c) => c === client && this.drop(),
          () => undefined,
        );
    });
    await client.connect();
    return client;
  }
}

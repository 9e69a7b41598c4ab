import { registerByEmail } from './support/accounts';
import { startTestApp, TestApp } from './support/test-app';

/** Help-centre chat on real PostgreSQL + Redis: a user's message racing an operator's close. */
describe('help centre: a message racing the close of its conversation (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (token: string, path: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);

  it('a close that commits while the send waits for the row lock: the message opens a new conversation (regression: it went into the closed one)', async () => {
    const a = await registerByEmail(t);
    const first = await post(a.token, 'help/chat/send', { text: 'hello' });
    expect(first.body.code).toBe(1);
    const conv = first.body.data.conversation_id as string;

    // A second connection holds the conversation's row lock, as an operator's close does.
    const operator = t.ds.createQueryRunner();
    await operator.connect();
    try {
      await operator.startTransaction();
      await operator.query('SELECT 1 FROM chat_conversations WHERE id = $1 FOR UPDATE', [conv]);
      const sending = post(a.token, 'help/chat/send', { text: 'still there?' }).then((r) => r);
      // The send has found the open conversation and waits for its lock.
      let waiting = false;
      for (let i = 0; i < 100 && !waiting; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const rows = await t.ds.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM chat_conversations WHERE id = $1 FOR UPDATE'`,
        );
        waiting = rows.length > 0;
      }
      expect(waiting).toBe(true);
      await operator.query(`UPDATE chat_conversations SET status = 'closed', closed_by = 1, closed_at = now() WHERE id = $1`, [conv]);
      await operator.commitTransaction();

      const sent = (await sending).body;
      expect(sent.code).toBe(1);
      expect(sent.data.conversation_id).not.toBe(conv);
      const convs = await t.ds.query('SELECT id::text, status FROM chat_conversations WHERE user_id = $1 ORDER BY id', [a.user.id]);
      expect(convs).toEqual([
        { id: conv, status: 'closed' },
        { id: sent.data.conversation_id, status: 'open' },
      ]);
      const [{ n }] = await t.ds.query('SELECT count(*)::int AS n FROM chat_messages WHERE conversation_id = $1', [conv]);
      expect(n).toBe(1);
      const [msg] = await t.ds.query('SELECT conversation_id::text, text FROM chat_messages WHERE id = $1', [sent.data.id]);
      expect(msg).toEqual({ conversation_id: sent.data.conversation_id, text: 'still there?' });
    } finally {
      if (operator.isTransactionActive) await operator.rollbackTransaction();
      await operator.release();
    }
  });
});

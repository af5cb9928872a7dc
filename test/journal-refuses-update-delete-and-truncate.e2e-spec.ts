import { Client } from 'pg';
import { Harness } from './support/harness';
import { Stack } from './support/stack';

// The journal's guard in the database: ordinary statements cannot change, remove or truncate an
// entry (tampering needs the triggers disabled, which verify then finds). Each statement below
// would succeed without its trigger.
describe('the journal table', () => {
  let stack: Stack;
  let h: Harness;
  let db: Client;
  beforeAll(async () => {
    stack = await Stack.create('appendonly');
    await stack.start('authorizer', 'authorizer');
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
    db = new Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    await stack?.stop();
  });

  it('refuses UPDATE, DELETE and TRUNCATE, and keeps the entry as written', async () => {
    const [d] = await h.decisions('appendonly-run', 1);
    await h.client.send([d]);
    await h.waitUntil('the final entry', async () => (await h.finalRows([d.decisionId])).length === 1);
    const before = await h.query<{ journal_seq: string; hash: string; entry: string }>('SELECT journal_seq::text, hash, entry FROM journal ORDER BY journal_seq');
    expect(before.length).toBeGreaterThan(0);

    for (const sql of [
      `UPDATE journal SET reason_code = 'rewritten' WHERE journal_seq = ${before[0].journal_seq}`,
      `DELETE FROM journal WHERE journal_seq = ${before[0].journal_seq}`,
      'TRUNCATE journal',
    ]) {
      await expect(db.query(sql)).rejects.toThrow('journal is append-only');
    }
    expect(await h.query('SELECT journal_seq::text, hash, entry FROM journal ORDER BY journal_seq')).toEqual(before);
  });
});

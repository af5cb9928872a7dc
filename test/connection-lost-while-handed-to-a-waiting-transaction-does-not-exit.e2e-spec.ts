import { DatabaseError, Pool, type PoolClient } from 'pg';
import { handlePoolErrors } from '@arvis/persistence';

/**
 * The chaos suite once saw the authorizer exit on `Unhandled 'error' event` right after
 * PostgreSQL connections were terminated under load. The window: a released client is handed,
 * synchronously, to a caller waiting in `await pool.connect()` (Prisma's transactions check out
 * connections that way). pg-pool removes its idle listener at once, but the caller attaches its
 * own only when its await resumes, a microtask later. If the server's "terminating connection"
 * message sits in the same TCP chunk as the ReadyForQuery that ended the previous query, the
 * client emits 'error' in that gap with no listener, and Node ends the process.
 * The spec drives exactly that interleaving on a real connection.
 */
describe('a connection lost while it is handed to a waiting transaction', () => {
  const url = `postgresql://postgres@127.0.0.1:5432/postgres`;
  let pool: Pool;
  const warnings: string[] = [];

  beforeEach(() => {
    warnings.length = 0;
    pool = handlePoolErrors(new Pool({ connectionString: url, max: 1 }), 'spec', (m) => warnings.push(m.error));
  });
  afterEach(async () => {
    await pool.end();
  });

  it('does not raise an unhandled error, and the waiting caller learns of the loss from its next query', async () => {
    const first = await pool.connect();
    await first.query('SELECT 1');
    const waiting = pool.connect(); // queued: the pool's only connection is checked out
    first.release(); // hands the client to the waiter synchronously; its idle listener is gone
    const terminated = new DatabaseError('terminating connection due to administrator command', 0, 'error');
    terminated.code = '57P01';
    terminated.severity = 'FATAL';
    // What the protocol parser does with an ErrorResponse that arrives between queries.
    let unhandled: unknown;
    try {
      (first as unknown as { connection: { emit(e: string, m: unknown): void } }).connection.emit('errorMessage', terminated);
    } catch (e) {
      unhandled = e; // what Node would have turned into a process exit
    }
    const second: PoolClient = await waiting;
    second.release(true); // a broken connection is discarded, not pooled again

    expect(unhandled).toBeUndefined();
    expect(second).toBe(first);
    expect(warnings.some((w) => w.includes('terminating connection due to administrator command'))).toBe(true);
    // The pool goes on with a fresh connection.
    await expect(pool.query('SELECT 1 AS ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
  });
});

import { Client } from 'pg';
import { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { sqlOn } from './support/raw-sql';

// Two dispatchers in different consumer groups get the same capabilities in different orders.
// An UPDATE over `unnest(ids)` or `= ANY(ids)` locks rows in whatever order its plan visits
// them; here the plan is pinned to visit them in the order given, and two other sessions hold
// the rows so that both batches are mid-statement at once. Locking in id order first means one
// batch waits for the other instead of deadlocking.
describe('capability batches given in opposite orders', () => {
  let env: TestEnvironment;
  let a: Client;
  let b: Client;
  const holders: Client[] = [];
  // Every store method used here takes its transaction; the confirmation store's own client is never reached.
  const store = new CapabilityStore(new ConfirmationStore(undefined as never));
  const ids = ['cap-a', 'cap-b'];

  beforeAll(async () => {
    env = await createEnvironment('lockorder');
    a = new Client({ connectionString: env.databaseUrl });
    b = new Client({ connectionString: env.databaseUrl });
    await Promise.all([a.connect(), b.connect()]);
    const seed = new Client({ connectionString: env.databaseUrl });
    await seed.connect();
    // Enough rows that an index lookup per id is the natural plan.
    await seed.query(`INSERT INTO capabilities (capability_id, decision_id, intent_id, state, commitment)
      SELECT 'cap-' || g, 'd-' || g, 'i-' || g, 'minted', 'x' FROM generate_series(1, 2000) g`);
    await seed.query(`INSERT INTO capabilities (capability_id, decision_id, intent_id, state, commitment)
      VALUES ('cap-a', 'd-a', 'i-a', 'minted', 'x'), ('cap-b', 'd-b', 'i-b', 'minted', 'x')`);
    // Their intents, holding the receipts both dispatchers present (activation binds only a capability's own intent's receipt).
    await seed.query(`INSERT INTO intents (intent_id, decision_id, capability_id, run_id, causal_id, tenant, principal, tool, process_id,
        payload_canonical, payload_sha256, effect_context, effect_context_commitment, idempotency_key, catalog_fingerprint,
        intent_commitment, receipt_id, durable_position, store_fingerprint, committed_at)
      SELECT 'i-' || g, 'd-' || g, 'cap-' || g, 'run', 'c-' || g, 't', 'p', 'notes.append', 'proc', '{}', 'x', '{}', 'x', 'k-' || g, 'x',
             'x', 'r-cap-' || g, n, 'store', now() FROM unnest(ARRAY['a', 'b']) WITH ORDINALITY AS u(g, n)`);
    await seed.query('ANALYZE capabilities');
    await seed.end();
  });
  afterAll(async () => {
    await Promise.all(holders.map((h) => h.end().catch(() => undefined)));
    await a?.end();
    await b?.end();
  });

  const hold = async (id: string): Promise<Client> => {
    const c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    holders.push(c);
    await c.query('BEGIN');
    await c.query('SELECT 1 FROM capabilities WHERE capability_id = $1 FOR UPDATE', [id]);
    return c;
  };

  const consume = async (c: Client, order: string[], by: string) => {
    await c.query('BEGIN');
    try {
      // Pin the plan that visits rows in the order given (nested loop over unnest, index lookups).
      await c.query('SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off');
      await c.query(`SET LOCAL application_name = '${by}'`);
      const tx = sqlOn(c);
      await store.lockInOrder(tx, order);
      const won = await store.activateAndConsume(tx, order.map((id) => ({ capabilityId: id, receiptId: `r-${id}` })), by);
      await c.query('COMMIT');
      return won;
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    }
  };

  const waitingOnLock = async (apps: string[]) => {
    const c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
    try {
      for (let i = 0; i < 600; i++) {
        const { rows } = await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ANY($1) AND wait_event_type = 'Lock'`, [apps]);
        if (rows[0].n === apps.length) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      const { rows } = await c.query(`SELECT application_name, state, wait_event_type, wait_event, left(query, 60) AS q FROM pg_stat_activity WHERE datname = current_database()`);
      throw new Error(`${apps.join(', ')} never waited on a lock: ${JSON.stringify(rows)}`);
    } finally {
      await c.end();
    }
  };

  it('lets one batch consume both and the other none, with no deadlock', async () => {
    const holdA = await hold('cap-a');
    const holdB = await hold('cap-b');
    const first = consume(a, ['cap-b', 'cap-a'], 'first');
    const second = consume(b, ['cap-a', 'cap-b'], 'second');
    const settled = Promise.allSettled([first, second]);
    await waitingOnLock(['first', 'second']);
    // Free cap-a: a batch that went for cap-b first now holds both rows' locks in opposite orders.
    await holdA.query('COMMIT');
    await new Promise((r) => setTimeout(r, 300));
    await holdB.query('COMMIT');
    const [r1, r2] = await settled;
    const errors = [r1, r2].filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    expect(errors).toEqual([]);
    const won = [r1, r2].map((r) => [...(r as PromiseFulfilledResult<Set<string>>).value].sort());
    expect(won.map((w) => w.length).sort()).toEqual([0, 2]);
  });
});

import { Client } from 'pg';
import { chainLink } from '@arvis/crypto';
import { appendJournal, decisionRefusalEntry, toolResultEntry, type JournalDraft } from '@arvis/journal';
import { createEnvironment, type TestEnvironment } from './support/environment';
import { sqlOn } from './support/raw-sql';

// ADR 0088: an entry's copy for the journal topic is built by PostgreSQL from the entry's own
// parameters (the stored canonical text with its hash, and its trace id when traced, added), so
// the entry travels to the database once. Readers parse the copy and check its hash against the
// entry without `hash` and `traceId`: the copy must be exactly the stored entry plus those two,
// whatever the entry's strings hold, and take outbox positions in chain order.
describe("a journal entry's topic copy", () => {
  let env: TestEnvironment;
  let c: Client;
  const TOPIC = 'copies.arvis.journal';

  beforeAll(async () => {
    env = await createEnvironment('journalcopy');
    c = new Client({ connectionString: env.databaseUrl });
    await c.connect();
  });
  afterAll(async () => {
    await c?.end().catch(() => undefined);
  });

  const facts = (decisionId: string) => ({ decisionId, runId: 'copy-run', causalId: decisionId, tenant: 'acme', principal: 'alice', tool: 'notes.append' });
  // Strings JSON must escape, and ones it must not touch: quotes, backslashes, control and
  // separator characters, astral code points, something that looks like a closing brace.
  const awkward = 'a "quoted" \\ back\\slash\n\t\u0001 \u2028\u2029 é 漢字 🦀 }"} ,"hash":"x"';

  const append = async (drafts: JournalDraft[]) => {
    await c.query('BEGIN');
    try {
      const entries = await appendJournal(sqlOn(c), drafts, TOPIC);
      await c.query('COMMIT');
      return entries;
    } catch (e) {
      await c.query('ROLLBACK');
      throw e;
    }
  };

  it('is the stored entry with its hash (and trace id when traced), in chain order, for every kind of string', async () => {
    const trace = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const entries = await append([
      decisionRefusalEntry('authorization_refusal', facts('copy:1'), { code: 'risk_exceeded', message: awkward }),
      { ...toolResultEntry({ ...facts('copy:2'), capabilityId: 'cap-2', intentCommitment: 'a'.repeat(64), idempotencyKey: `idem:${'b'.repeat(64)}` }, { success: true, effectBoundary: 'effect_completed', output: { text: awkward, n: 1.5, big: 12345678901234, nested: [awkward, null, true] }, latencyMs: 3 }), trace },
      decisionRefusalEntry('authorization_refusal', facts('copy:3'), { code: 'risk_exceeded', message: '' }),
    ]);
    expect(entries).toHaveLength(3);

    const { rows } = await c.query<{ seq: string; topic: string; message_key: string; payload: string; trace_context: unknown; result_tenant: string | null; entry: string; hash: string; journal_seq: string }>(
      `SELECT o.seq::text, o.topic, o.message_key, o.payload, o.trace_context, o.result_tenant, j.entry, j.hash, j.journal_seq::text
       FROM outbox o JOIN journal j ON j.hash = o.payload::jsonb->>'hash'
       ORDER BY o.seq`,
    );
    expect(rows.map((r) => r.journal_seq)).toEqual(entries.map((e) => e.journalSeq));
    rows.forEach((r, i) => {
      const copy = JSON.parse(r.payload) as Record<string, unknown>;
      const { hash, traceId, ...unhashed } = copy;
      // What a reader checks: the copy without hash and traceId links to the chain with that hash.
      expect(chainLink(String(unhashed.prevHash), unhashed).hash).toBe(hash);
      expect(unhashed).toEqual(JSON.parse(r.entry));
      expect(hash).toBe(r.hash);
      // What the writer returned is what the topic carries.
      expect(copy).toEqual(JSON.parse(JSON.stringify(entries[i])));
      expect(r.topic).toBe(TOPIC);
      expect(r.message_key).toBe('copy-run');
      expect(r.result_tenant).toBe('acme'); // every one is a final entry
      if (i === 1) {
        expect(traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
        expect(r.trace_context).toEqual(trace);
      } else {
        expect(traceId).toBeUndefined();
        expect(r.trace_context).toBeNull();
      }
    });
    expect((JSON.parse(rows[0].payload) as { error: { message: string } }).error.message).toBe(awkward);
  });
});

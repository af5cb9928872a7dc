import { chainHash } from '@arvis/crypto';
import { sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

// Both apps run as separate processes against the real broker and database (global setup).
describe('decisions travel the whole path through real services', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  it('gives N decisions N distinct final journal entries, on the table and on the journal topic, and N effects', async () => {
    const N = 60;
    // Several runs, so several partitions are consumed in parallel.
    const decisions = (await Promise.all([0, 1, 2, 3].map((r) => h.decisions(`path-run-${r}`, N / 4)))).flat();
    const ids = decisions.map((d) => d.decisionId);
    await h.client.send(decisions);

    await h.waitUntil('a final entry per decision in the journal table', async () => (await h.finalRows(ids)).length === N);
    const rows = await h.finalRows(ids);
    expect(new Set(rows.map((r) => r.decision_id)).size).toBe(N);
    expect(new Set(rows.map((r) => r.journal_seq)).size).toBe(N);
    expect(rows.every((r) => r.kind === 'tool_result' && r.effect_boundary === 'effect_completed')).toBe(true);

    const effects = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM notes n JOIN capabilities c ON c.capability_id = n.capability_id
       WHERE c.decision_id = ANY($1)`,
      [ids],
    );
    expect(Number(effects[0].n)).toBe(N);
    const consumed = await h.query<{ state: string; n: string }>(
      `SELECT state, count(*)::text AS n FROM capabilities WHERE decision_id = ANY($1) GROUP BY state`,
      [ids],
    );
    expect(consumed).toEqual([{ state: 'consumed', n: String(N) }]);

    await h.journal.waitFor(() => [...h.journal.finalEntriesFor(ids).values()].length === N, 30_000);
    const onTopic = h.journal.finalEntriesFor(ids);
    expect(onTopic.size).toBe(N);
    expect([...onTopic.values()].every((es) => es.length === 1)).toBe(true);
    const topicSeqs = new Set([...onTopic.values()].map((es) => es[0].journalSeq));
    expect(topicSeqs).toEqual(new Set(rows.map((r) => r.journal_seq)));

    // The watcher's group is thrown away: it read all of that and committed no offset for it.
    const committed = await h.committedOffsets(h.journal.groupId, h.topics.journal);
    expect(committed.map((p) => p.offset).every((o) => o === '-1')).toBe(true);
  });

  it('keeps the journal table a hash chain without gaps', async () => {
    const rows = await h.query<{ seq_text: string; entry: string; prev_hash: string; hash: string }>(
      'SELECT journal_seq::text AS seq_text, entry, prev_hash, hash FROM journal ORDER BY journal.journal_seq',
    );
    expect(rows.length).toBeGreaterThan(0);
    let prev = '0'.repeat(64);
    rows.forEach((r, i) => {
      expect(r.seq_text).toBe(String(i + 1));
      expect(r.prev_hash).toBe(prev);
      expect(chainHash(r.prev_hash, JSON.parse(r.entry))).toBe(r.hash);
      prev = r.hash;
    });
  });
});

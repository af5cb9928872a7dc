import { canonicalJson, chainHash, GENESIS_HASH } from '@arvis/crypto';
import { ChainWalker } from './chain-walker';
import type { JournalRow } from './journal-row';

/** A chain of n rows built the way appendJournal builds them. */
function chain(n: number): JournalRow[] {
  const rows: JournalRow[] = [];
  let prevHash = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const unhashed = {
      specVersion: 1,
      kind: 'tool_result',
      decisionId: `d${i}`,
      runId: 'run-1',
      causalId: `c${i}`,
      tenant: 'acme',
      principal: 'alice',
      tool: 'notes.append',
      capabilityId: `cap${i}`,
      effectBoundary: 'effect_completed',
      success: true,
      output: { noteId: String(i) },
      recordedAt: '2026-11-29T00:00:00.000Z',
      journalSeq: String(i),
      prevHash,
    };
    const hash = chainHash(prevHash, unhashed);
    rows.push({
      journal_seq: String(i),
      kind: 'tool_result',
      decision_id: `d${i}`,
      run_id: 'run-1',
      tenant: 'acme',
      tool: 'notes.append',
      effect_boundary: 'effect_completed',
      success: true,
      reason_code: null,
      final_decision_id: `d${i}`,
      result_capability_id: `cap${i}`,
      entry: canonicalJson(unhashed),
      prev_hash: prevHash,
      hash,
      chain: 'main',
    });
    prevHash = hash;
  }
  return rows;
}

const walk = (rows: JournalRow[], head = { last_seq: rows.length ? rows[rows.length - 1].journal_seq : '0', last_hash: rows.length ? rows[rows.length - 1].hash : GENESIS_HASH }) => {
  const w = new ChainWalker();
  rows.forEach((r) => w.push(r));
  return w.finish(head);
};

describe('ChainWalker', () => {
  it('accepts an intact chain and an empty journal', () => {
    expect(walk(chain(5)).findings).toEqual([]);
    expect(walk([]).findings).toEqual([]);
  });

  it('names a row whose entry changed', () => {
    const rows = chain(5);
    rows[2] = { ...rows[2], entry: rows[2].entry.replace('"noteId":"3"', '"noteId":"99"') };
    expect(walk(rows).findings.map((f) => f.message)).toEqual(['chain broken at journal_seq 3: hash does not recompute (row changed)']);
  });

  it('names a deleted row as a gap', () => {
    const rows = chain(5);
    rows.splice(1, 1);
    expect(walk(rows).findings.map((f) => f.message)).toEqual(['gap: journal_seq 2 missing (row deleted)']);
  });

  it('names reordered rows by their broken links', () => {
    const rows = chain(5);
    const [a, b] = [rows[1], rows[2]];
    rows[1] = { ...a, entry: b.entry, prev_hash: b.prev_hash, hash: b.hash };
    rows[2] = { ...b, entry: a.entry, prev_hash: a.prev_hash, hash: a.hash };
    expect(walk(rows).findings[0].message).toBe('prev_hash of 2 is not the hash of 1 (reordered or changed)');
  });

  it('names a truncated tail by the head', () => {
    const rows = chain(5);
    const head = { last_seq: '5', last_hash: rows[4].hash };
    expect(walk(rows.slice(0, 4), head).findings.map((f) => f.message)).toEqual(['journal ends at 4 but head says 5 (truncated)']);
    expect(walk([], head).findings.map((f) => f.message)).toEqual(['journal is empty but head says 5 (truncated)']);
  });

  it('names a derived column changed without its entry', () => {
    const rows = chain(3);
    rows[1] = { ...rows[1], reason_code: 'tool_timeout' };
    expect(walk(rows).findings.map((f) => f.message)).toEqual(['chain broken at journal_seq 2: column reason_code disagrees with the entry (row changed)']);
  });

  it('reads an entry without a chain key (hashed before the field existed) as chain main, and checks the column', () => {
    // chain(3) builds entries without `chain`, as rows written before the migration are.
    const rows = chain(3);
    expect(walk(rows).findings).toEqual([]);
    rows[1] = { ...rows[1], chain: 'other' };
    expect(walk(rows).findings.map((f) => f.message)).toEqual(['chain broken at journal_seq 2: column chain disagrees with the entry (row changed)']);
  });

  it('names a rehashed first row that no longer starts at genesis', () => {
    const rows = chain(2);
    const entry = { ...JSON.parse(rows[0].entry), prevHash: 'a'.repeat(64) };
    rows[0] = { ...rows[0], prev_hash: 'a'.repeat(64), entry: canonicalJson(entry), hash: chainHash('a'.repeat(64), entry) };
    expect(walk(rows).findings[0].message).toBe('prev_hash of 1 is not the genesis hash (reordered or changed)');
  });
});

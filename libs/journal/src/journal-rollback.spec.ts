import { chainLink, GENESIS_HASH } from '@arvis/crypto';
import { lostEntriesOf, rollbackVerdict, rollbackVerdictOfChains, topicHeadsOf } from './journal-rollback';

/** A chain of n entries as the topic copies them (JSON of the entry with its hash). */
function chain(n: number, name = 'main'): { records: string[]; hashes: string[] } {
  const records: string[] = [];
  const hashes = [GENESIS_HASH];
  for (let i = 1; i <= n; i++) {
    const unhashed = {
      specVersion: 1, kind: 'tool_result', decisionId: `d${i}`, runId: 'r', causalId: `c${i}`, tenant: 'acme', principal: 'alice', tool: 'notes.append',
      capabilityId: `cap-${i}`, effectBoundary: 'effect_completed', success: true, recordedAt: '2026-12-01T00:00:00.000Z', chain: name, journalSeq: String(i), prevHash: hashes[i - 1],
    };
    const { hash } = chainLink(hashes[i - 1], unhashed);
    hashes.push(hash);
    records.push(JSON.stringify({ ...unhashed, hash, traceId: '0af7651916cd43dd8448eb211c80319c' }));
  }
  return { records, hashes };
}

describe('the journal topic against a restored database', () => {
  const { records, hashes } = chain(4);

  it('takes the highest seq of any partition, in any order, with duplicates; checkpoints sign', () => {
    const checkpoint = JSON.stringify({ recordType: 'checkpoint', specVersion: 1, chain: 'main', seq: '3', hash: hashes[3], signedAt: '2026-12-01T00:00:00.000Z', signature: { keyId: 'k', value: 'A'.repeat(86) } });
    const head = topicHeadsOf([records[3], records[0], 'not json', records[3], checkpoint, records[2]]).get('main');
    expect(head).toEqual({ chain: 'main', seq: 4n, hash: hashes[4], signedSeq: 3n });
  });

  it('is consistent when the database holds the topic head, behind when it lacks it, forked when it holds another', () => {
    const topic = { chain: 'main', seq: 4n, hash: hashes[4], signedSeq: null };
    expect(rollbackVerdict(topic, { chain: 'main', seq: 6n, hash: 'h6', hashAtTopicSeq: hashes[4] })).toEqual({ state: 'consistent' });
    expect(rollbackVerdict(undefined, { chain: 'main', seq: 0n, hash: GENESIS_HASH, hashAtTopicSeq: null })).toEqual({ state: 'consistent' });
    expect(rollbackVerdict(topic, { chain: 'main', seq: 2n, hash: hashes[2], hashAtTopicSeq: null })).toMatchObject({ state: 'journal_rolled_back', databaseSeq: '2', topicSeq: '4', topicHash: hashes[4] });
    expect(rollbackVerdict(topic, { chain: 'main', seq: 5n, hash: 'other', hashAtTopicSeq: 'other' })).toMatchObject({ state: 'journal_diverged', topicSeq: '4' });
  });

  it('takes back the lost entries in order, each once, hashed as received without the trace id', () => {
    const lost = lostEntriesOf([records[3], records[2], records[3], records[0]], 'main', { seq: 2n, hash: hashes[2] }, 4n);
    expect(lost.ok && lost.entries.map((e) => [e.seq, e.entry.hash])).toEqual([[3n, hashes[3]], [4n, hashes[4]]]);
    expect(lost.ok && JSON.parse(lost.entries[0].unhashed)).not.toHaveProperty('traceId');
  });

  it('refuses a gap, a copy that does not link, a changed record and two different copies of a seq', () => {
    expect(lostEntriesOf([records[3]], 'main', { seq: 2n, hash: hashes[2] }, 4n)).toEqual({ ok: false, reason: 'missing_on_topic', seq: '3' });
    expect(lostEntriesOf([records[2], records[3]], 'main', { seq: 2n, hash: 'f'.repeat(64) }, 4n)).toEqual({ ok: false, reason: 'does_not_link', seq: '3' });
    const changed = JSON.stringify({ ...JSON.parse(records[2]), tenant: 'globex' });
    expect(lostEntriesOf([changed, records[3]], 'main', { seq: 2n, hash: hashes[2] }, 4n)).toEqual({ ok: false, reason: 'hash_mismatch', seq: '3' });
    expect(lostEntriesOf([records[2], changed, records[3]], 'main', { seq: 2n, hash: hashes[2] }, 4n)).toEqual({ ok: false, reason: 'conflicting_copies', seq: '3' });
  });

  it('judges each chain on its own: one chain behind is a rollback, whatever the others hold (ADR 0062)', () => {
    const other = chain(3, 'shard-1');
    const topic = topicHeadsOf([...records, ...other.records]);
    expect([...topic.keys()].sort()).toEqual(['main', 'shard-1']);
    const main = { chain: 'main', seq: 4n, hash: hashes[4], hashAtTopicSeq: hashes[4] };
    expect(rollbackVerdictOfChains(topic, [main, { chain: 'shard-1', seq: 3n, hash: other.hashes[3], hashAtTopicSeq: other.hashes[3] }])).toEqual({ state: 'consistent' });
    expect(rollbackVerdictOfChains(topic, [main, { chain: 'shard-1', seq: 1n, hash: other.hashes[1], hashAtTopicSeq: null }])).toMatchObject({ state: 'journal_rolled_back', chain: 'shard-1', databaseSeq: '1', topicSeq: '3' });
    // A chain the topic holds and the database has no head for lost everything.
    expect(rollbackVerdictOfChains(topic, [main])).toMatchObject({ state: 'journal_rolled_back', chain: 'shard-1', databaseSeq: '0', topicSeq: '3' });
    // A chain the database has and the topic never saw is no rollback.
    expect(rollbackVerdictOfChains(topicHeadsOf(records), [main, { chain: 'shard-2', seq: 0n, hash: GENESIS_HASH, hashAtTopicSeq: null }])).toEqual({ state: 'consistent' });
  });
});

import { chainHash, GENESIS_HASH, generateEd25519KeyPair, loadEd25519PrivateKey, loadEd25519PublicKey, signCanonical } from '@arvis/crypto';
import { checkTopicChains } from './topic-chain';
import { TopicCollector } from './topic-copy';

const keys = generateEd25519KeyPair();
const key = { keyId: 'journal-1', privateKey: loadEd25519PrivateKey(keys.privateKeyPem) };
const keyring = new Map([['journal-1', loadEd25519PublicKey(keys.publicKeyPem)]]);

type Entry = Record<string, unknown> & { journalSeq: string; hash: string };

function entries(n: number, withChain = true): Entry[] {
  const out: Entry[] = [];
  let prevHash = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const unhashed = {
      specVersion: 1, kind: 'tool_result', decisionId: `d${i}`, runId: 'run-1', causalId: `c${i}`, tenant: 'acme', principal: 'alice',
      tool: 'notes.append', effectBoundary: 'effect_completed', success: true, output: { noteId: String(i) },
      recordedAt: '2026-11-30T00:00:00.000Z', ...(withChain ? { chain: 'main' } : {}), journalSeq: String(i), prevHash,
    };
    const hash = chainHash(prevHash, unhashed);
    out.push({ ...unhashed, hash });
    prevHash = hash;
  }
  return out;
}

const checkpoint = (e: Entry, signer = key) =>
  signCanonical({ recordType: 'checkpoint', specVersion: 1, chain: 'main', seq: e.journalSeq, hash: e.hash, signedAt: '2026-11-30T00:00:01.000Z' }, signer);

function check(records: unknown[]) {
  const c = new TopicCollector(keyring);
  records.forEach((r, i) => c.add(Buffer.from(JSON.stringify(r)), { partition: 0, offset: String(i) }));
  return checkTopicChains(c);
}

describe('checkTopicChains', () => {
  const chain = entries(6);

  it('accepts the chain in any order with duplicate copies, and reports what the checkpoints sign', () => {
    const r = check([chain[3], chain[0], chain[1], chain[0], chain[2], checkpoint(chain[3]), chain[4], chain[5], checkpoint(chain[3])]);
    expect(r.findings).toEqual([]);
    expect(r.intact).toBe(true);
    expect(r.duplicates).toBe(2);
    expect(r.chains[0]).toMatchObject({ chain: 'main', entries: 6, anchor: 'genesis', signedThrough: '4', unsigned: 2 });
  });

  it('accepts entries hashed before the chain field existed (no chain key)', () => {
    const legacy = entries(3, false);
    expect(check([...legacy, checkpoint(legacy[2])]).findings).toEqual([]);
  });

  it('names a forged copy of a seq whose hash was recomputed', () => {
    const forged: Entry = { ...chain[2], output: { noteId: 'forged' } };
    const { hash: _old, ...unhashed } = forged;
    const r = check([...chain, { ...unhashed, hash: chainHash(forged.prevHash as string, unhashed) }]);
    expect(r.intact).toBe(false);
    expect(r.findings.map((f) => [f.kind, f.journalSeq])).toEqual([['conflicting_copies', '3']]);
    expect(r.firstBreak).toMatch(/^journal_seq 3: the copy at partition 0 offset 6 differs/);
  });

  it('names a forged record standing alone by the checkpoint that no longer matches', () => {
    const forged = { ...chain[1], output: { noteId: 'forged' } };
    const r = check([chain[0], forged, ...chain.slice(2), checkpoint(chain[4])]);
    expect(r.findings.map((f) => [f.kind, f.journalSeq])).toEqual([['changed', '2']]);
  });

  it('names a checkpoint with a bad signature and one that does not match the chain', () => {
    const other = generateEd25519KeyPair();
    const forgedSigner = { keyId: 'journal-1', privateKey: loadEd25519PrivateKey(other.privateKeyPem) };
    const wrongHash = signCanonical({ ...checkpoint(chain[4]), hash: chain[3].hash }, key);
    const r = check([...chain, checkpoint(chain[1], forgedSigner), wrongHash]);
    expect(r.findings.map((f) => [f.kind, f.journalSeq])).toEqual([['bad_signature', '2'], ['checkpoint_mismatch', '5']]);
  });

  it('anchors on the first signed checkpoint when the oldest records expired, and refuses to guess without one', () => {
    const retained = [chain[2], chain[3], chain[4], chain[5]];
    const anchored = check([...retained, checkpoint(chain[3]), checkpoint(chain[5])]);
    expect(anchored.findings).toEqual([]);
    expect(anchored.chains[0]).toMatchObject({ anchor: 'checkpoint main@4', signedThrough: '6', unsigned: 0 });
    expect(check(retained).findings.map((f) => f.kind)).toEqual(['unanchored']);
  });

  it('names a gap and an unreadable record', () => {
    const r = check([chain[0], chain[2], 'not an entry']);
    expect(r.findings.map((f) => [f.kind, f.journalSeq])).toEqual([['unreadable', null], ['gap', '2']]);
  });
});

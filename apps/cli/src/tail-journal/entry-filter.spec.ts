import { ChainSeqDeduper, matchesFilter, readTailedEntry, SeqDeduper, type TailedEntry } from './entry-filter';

const entry: TailedEntry = {
  journalSeq: '3',
  kind: 'tool_result',
  decisionId: 'run-1:d0',
  runId: 'run-1',
  tenant: 'acme',
  tool: 'notes.append',
  effectBoundary: 'effect_completed',
  success: true,
};

describe('tail filtering', () => {
  it('reads journal entries and ignores anything else', () => {
    expect(readTailedEntry(Buffer.from(JSON.stringify(entry)))).toEqual(entry);
    expect(readTailedEntry(Buffer.from('not json'))).toBeNull();
    expect(readTailedEntry(Buffer.from(JSON.stringify({ ...entry, journalSeq: 3 })))).toBeNull();
    expect(readTailedEntry(null)).toBeNull();
  });

  it('tells a signed checkpoint apart, even one naming a seq, and refuses other record types', () => {
    const checkpoint = { recordType: 'checkpoint', specVersion: 1, chain: 'main', seq: '3', hash: 'a'.repeat(64) };
    expect(readTailedEntry(Buffer.from(JSON.stringify(checkpoint)))).toBe('checkpoint');
    expect(readTailedEntry(Buffer.from(JSON.stringify({ ...entry, recordType: 'something-new' })))).toBeNull();
  });

  it('matches on every given field and ignores absent ones', () => {
    expect(matchesFilter(entry, {})).toBe(true);
    expect(matchesFilter(entry, { tenant: 'acme', tool: 'notes.append', boundary: 'effect_completed', runId: 'run-1' })).toBe(true);
    expect(matchesFilter(entry, { tenant: 'other' })).toBe(false);
    expect(matchesFilter(entry, { boundary: 'effect_failed' })).toBe(false);
    expect(matchesFilter(entry, { runId: 'run-2' })).toBe(false);
  });

  it('passes each journalSeq once, whatever the arrival order', () => {
    const d = new SeqDeduper();
    const seen = ['2', '1', '2', '3', '1', '5', '5', '4', '3'].filter((s) => d.firstTime(s));
    expect(seen).toEqual(['2', '1', '3', '5', '4']);
  });

  it('passes each (chain, journalSeq) once: the same seq on two chains is two entries', () => {
    const d = new ChainSeqDeduper();
    const seen = [['main', '1'], ['shard-1', '1'], [undefined, '1'], ['shard-1', '1'], ['shard-1', '2']].filter(([c, s]) => d.firstTime(c, s!));
    expect(seen).toEqual([['main', '1'], ['shard-1', '1'], ['shard-1', '2']]);
  });
});

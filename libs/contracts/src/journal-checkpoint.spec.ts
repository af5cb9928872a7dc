import { readJournalTopicRecord } from './index';

const h = (c: string): string => c.repeat(64);
const checkpoint = {
  recordType: 'checkpoint',
  specVersion: 1,
  chain: 'main',
  seq: '20',
  hash: h('b'),
  signedAt: '2026-11-30T12:00:00.000Z',
  signature: { keyId: 'journal-1', value: 'A'.repeat(86) },
};
const entry = {
  specVersion: 1,
  kind: 'authorization_refusal',
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'c-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  effectBoundary: 'pre_effect_refusal',
  success: false,
  reasonCode: 'risk_exceeded',
  recordedAt: '2026-11-30T12:00:00.000Z',
  journalSeq: '20',
  prevHash: h('0'),
  hash: h('a'),
};
const read = (v: unknown) => readJournalTopicRecord(JSON.stringify(v));

describe('journal topic records', () => {
  it('reads an entry, with chain "main" when it predates the field, and keeps the record as received', () => {
    const legacy = read(entry);
    expect(legacy).toMatchObject({ recordType: 'entry', entry: { chain: 'main', journalSeq: '20' }, raw: entry });
    expect(legacy.recordType === 'entry' && 'chain' in legacy.raw).toBe(false);
    expect(read({ ...entry, chain: 'shard-2' })).toMatchObject({ recordType: 'entry', entry: { chain: 'shard-2' } });
  });

  it('reads a checkpoint, which can never pass for an entry', () => {
    expect(read(checkpoint)).toMatchObject({ recordType: 'checkpoint', checkpoint: { seq: '20', chain: 'main' } });
    const { recordType: _r, ...withoutType } = checkpoint;
    expect(read(withoutType).recordType).toBe('unreadable');
  });

  it.each([
    ['an unknown recordType', { ...entry, recordType: 'entry-v2' }],
    ['a checkpoint with a journalSeq', { ...checkpoint, journalSeq: '20' }],
    ['a checkpoint without a signature', { ...checkpoint, signature: undefined }],
    ['an entry naming a bad chain', { ...entry, chain: 'Main Chain' }],
    ['not JSON', 'x{'],
  ])('calls %s unreadable', (_name, value) => {
    expect(readJournalTopicRecord(typeof value === 'string' ? value : JSON.stringify(value)).recordType).toBe('unreadable');
  });
});

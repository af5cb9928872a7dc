import { DlqRecordSchema, buildDlqRecord } from './index';

const input = {
  sourceTopic: 'arvis.decisions',
  partition: 3,
  offset: '123456789012345678',
  reasonCode: 'malformed_message' as const,
  detail: 'invalid JSON',
  receivedAt: new Date('2025-01-02T03:04:05.678Z'),
  maxRawBytes: 1024,
};

describe('DLQ record', () => {
  it('round-trips through JSON with the original bytes intact', () => {
    const raw = Buffer.from([0x7b, 0xff, 0x00, 0x22, 0xc3]);
    const record = buildDlqRecord({ ...input, raw });
    const back = DlqRecordSchema.parse(JSON.parse(JSON.stringify(record)));
    expect(back).toEqual({
      specVersion: 1,
      sourceTopic: 'arvis.decisions',
      partition: 3,
      offset: '123456789012345678',
      reasonCode: 'malformed_message',
      detail: 'invalid JSON',
      rawBase64: raw.toString('base64'),
      receivedAt: '2025-01-02T03:04:05.678Z',
    });
    expect(Buffer.from(back.rawBase64, 'base64').equals(raw)).toBe(true);
  });

  it('records a null (tombstone) value as empty raw bytes', () => {
    expect(buildDlqRecord({ ...input, raw: null }).rawBase64).toBe('');
  });

  it('accepts a bigint offset', () => {
    expect(buildDlqRecord({ ...input, offset: 42n, raw: null }).offset).toBe('42');
  });

  it('truncates oversized raw bytes and says so in the detail', () => {
    const record = buildDlqRecord({ ...input, raw: Buffer.alloc(100, 1), maxRawBytes: 10 });
    expect(Buffer.from(record.rawBase64, 'base64')).toHaveLength(10);
    expect(record.detail).toBe('invalid JSON (raw truncated to 10 of 100 bytes)');
  });

  it('refuses unknown fields and a non-decimal offset', () => {
    const record = buildDlqRecord({ ...input, raw: null });
    expect(DlqRecordSchema.safeParse({ ...record, extra: 1 }).success).toBe(false);
    expect(DlqRecordSchema.safeParse({ ...record, offset: '-1' }).success).toBe(false);
    expect(DlqRecordSchema.safeParse({ ...record, partition: -1 }).success).toBe(false);
  });

  it('carries the decisionId the message claimed, when given, and omits it otherwise', () => {
    const record = buildDlqRecord({ ...input, reasonCode: 'identity_invalid', decisionId: 'run-1:d7', raw: null });
    expect(DlqRecordSchema.parse(JSON.parse(JSON.stringify(record)))).toMatchObject({ reasonCode: 'identity_invalid', decisionId: 'run-1:d7' });
    expect('decisionId' in buildDlqRecord({ ...input, raw: null })).toBe(false);
  });

  it('cuts a long detail by code point, never leaving half an emoji', () => {
    const record = buildDlqRecord({ ...input, detail: `${'a'.repeat(998)}😀😀😀`, raw: null });
    expect([...record.detail]).toHaveLength(1000);
    expect(record.detail.endsWith('a😀…')).toBe(true);
  });
});

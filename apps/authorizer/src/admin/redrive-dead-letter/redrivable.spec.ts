import { buildDlqRecord } from '@arvis/contracts';
import { checkRedrivable } from './redrivable';

const record = (raw: Buffer, over: { sourceTopic?: string; maxRawBytes?: number; identitySha256?: string } = {}) =>
  Buffer.from(
    JSON.stringify(
      buildDlqRecord({
        sourceTopic: over.sourceTopic ?? 'arvis.decisions',
        partition: 2,
        offset: '17',
        reasonCode: 'identity_invalid',
        detail: 'jwks_unavailable: connect ECONNREFUSED',
        raw,
        receivedAt: new Date('2026-12-02T03:00:00Z'),
        maxRawBytes: over.maxRawBytes ?? 1024,
        ...(over.identitySha256 ? { identitySha256: over.identitySha256 } : {}),
      }),
    ),
  );

describe('whether a dead letter can be sent again', () => {
  it('gives back the original text of a complete dead letter from the expected topic', () => {
    const original = '{"specVersion":1,"decisionId":"d-é-1"}';
    expect(checkRedrivable(record(Buffer.from(original)), 'arvis.decisions')).toMatchObject({ ok: true, text: original, record: { partition: 2, offset: '17' } });
  });

  it('refuses what is no dead letter, one from another topic, a cut one and bytes that are not text', () => {
    expect(checkRedrivable(Buffer.from('{"a":1}'), 'arvis.decisions')).toMatchObject({ ok: false, why: 'not_a_dead_letter' });
    expect(checkRedrivable(Buffer.from('not json'), 'arvis.decisions')).toMatchObject({ ok: false, why: 'not_a_dead_letter' });
    expect(checkRedrivable(null, 'arvis.decisions')).toMatchObject({ ok: false, why: 'not_a_dead_letter' });
    expect(checkRedrivable(record(Buffer.from('{}'), { sourceTopic: 'arvis.intents' }), 'arvis.decisions')).toMatchObject({ ok: false, why: 'foreign_source' });
    // The intents' DLQ takes every pool's intents topic (ADR 0080): each goes back where it came from.
    const pooled = record(Buffer.from('{}'), { sourceTopic: 'arvis.intents.pool.ledger' });
    expect(checkRedrivable(pooled, ['arvis.intents', 'arvis.intents.pool.ledger'])).toMatchObject({ ok: true, record: { sourceTopic: 'arvis.intents.pool.ledger' } });
    expect(checkRedrivable(pooled, ['arvis.intents'])).toMatchObject({ ok: false, why: 'foreign_source' });
    expect(checkRedrivable(record(Buffer.from('x'.repeat(40)), { maxRawBytes: 10 }), 'arvis.decisions')).toMatchObject({ ok: false, why: 'truncated' });
    expect(checkRedrivable(record(Buffer.from([0xff, 0xfe, 0x00])), 'arvis.decisions')).toMatchObject({ ok: false, why: 'not_text' });
    const redacted = record(Buffer.from(`{"identity":"sha256:${'a'.repeat(64)}"}`), { identitySha256: 'a'.repeat(64) });
    expect(checkRedrivable(redacted, 'arvis.decisions')).toMatchObject({ ok: false, why: 'identity_not_kept' });
  });
});

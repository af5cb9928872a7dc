import { DlqRecordSchema, type DlqRecord } from '@arvis/contracts';

/** Why a dead letter cannot be sent again as it is. */
export type NotRedrivable = 'not_a_dead_letter' | 'foreign_source' | 'identity_not_kept' | 'truncated' | 'not_text';

export type RedriveCheck = { ok: true; record: DlqRecord; text: string } | { ok: false; why: NotRedrivable; message: string };

const TRUNCATED = /\(raw truncated to \d+ of \d+ bytes\)$/;

/**
 * Pure: whether the value read from a DLQ topic is a dead letter whose original message can be
 * sent again to the topic it came from, byte for byte: one of `sources` (for the intents' DLQ,
 * every pool's intents topic, ADR 0080). Its raw bytes must be complete (a record keeps at
 * most DLQ_MAX_RAW_BYTES and then says so in its detail) and text (the outbox carries text;
 * bytes that are not UTF-8 would be dead-lettered again anyway, as malformed_message).
 */
export function checkRedrivable(value: Buffer | null, sources: string | readonly string[]): RedriveCheck {
  let record: DlqRecord;
  try {
    const parsed = DlqRecordSchema.safeParse(JSON.parse(value?.toString('utf8') ?? ''));
    if (!parsed.success) return { ok: false, why: 'not_a_dead_letter', message: 'the record is not a dead-letter record' };
    record = parsed.data;
  } catch {
    return { ok: false, why: 'not_a_dead_letter', message: 'the record is not JSON' };
  }
  const from = typeof sources === 'string' ? [sources] : sources;
  if (!from.includes(record.sourceTopic)) {
    return { ok: false, why: 'foreign_source', message: `the dead letter came from ${record.sourceTopic}, not ${from.join(' or ')}` };
  }
  // No bearer token is kept at rest (ADR 0035): a decision's copy holds only its token's SHA-256,
  // so sent again it could never authenticate. Its producer must send it again with a valid token.
  if (record.identitySha256 !== undefined) {
    return { ok: false, why: 'identity_not_kept', message: "the decision's token is not kept (only its SHA-256): its producer must send it again" };
  }
  if (TRUNCATED.test(record.detail)) return { ok: false, why: 'truncated', message: 'the dead letter kept only part of the original bytes' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(record.rawBase64, 'base64'));
    return { ok: true, record, text };
  } catch {
    return { ok: false, why: 'not_text', message: 'the original bytes are not UTF-8 text' };
  }
}

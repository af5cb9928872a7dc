import { z } from 'zod';
import { clipText } from './clip-text';
import { DecimalString, Identifier, Rfc3339Utc, Sha256Hex } from './primitives';
import { ReasonCode, SPEC_VERSION } from './reason-codes';

export const DlqRecordSchema = z.strictObject({
  specVersion: z.literal(SPEC_VERSION),
  sourceTopic: z.string().min(1),
  partition: z.number().int().min(0),
  offset: DecimalString,
  reasonCode: ReasonCode,
  /**
   * The decision the message claimed to be, when the consumer could read one: set on
   * `identity_invalid` (a claim nobody is accountable for: no inbox row, no journal entry) and
   * on a decision that could not be processed nor journaled. Optional since contracts v2.
   */
  decisionId: Identifier.optional(),
  /**
   * SHA-256 (hex) of the decision's identity token, when the dead-lettered message carried one:
   * the raw copy has `sha256:<this>` where the token was (a bearer token is never copied).
   * Optional; added after contracts v3 (ADR 0035).
   */
  identitySha256: Sha256Hex.optional(),
  detail: z.string(),
  rawBase64: z.string(),
  receivedAt: Rfc3339Utc,
});
export type DlqRecord = z.infer<typeof DlqRecordSchema>;

/** The detail often quotes the sender (an issuer, an error); it is cut, by code point, to this. */
export const DLQ_MAX_DETAIL = 1000;

export interface BuildDlqRecordInput {
  sourceTopic: string;
  partition: number;
  offset: string | bigint;
  reasonCode: ReasonCode;
  detail: string;
  decisionId?: string;
  identitySha256?: string;
  raw: Buffer | null;
  receivedAt: Date;
  /**
   * Keep at most this many raw bytes; the detail then says how much was cut. Required: base64
   * grows bytes by 4/3, and the limit must be the one the relay's message size was checked
   * against (DLQ_MAX_RAW_BYTES), or a record can be one the broker refuses.
   */
  maxRawBytes: number;
}

/**
 * Builds a validated DLQ record. Throws only on programmer error (bad offset, invalid date),
 * never because of the message content being dead-lettered.
 */
export function buildDlqRecord(input: BuildDlqRecordInput): DlqRecord {
  const raw = input.raw ?? Buffer.alloc(0);
  const maxRaw = input.maxRawBytes;
  const truncated = raw.byteLength > maxRaw;
  const kept = truncated ? raw.subarray(0, maxRaw) : raw;
  const said = clipText(input.detail, DLQ_MAX_DETAIL);
  const detail = truncated ? `${said} (raw truncated to ${maxRaw} of ${raw.byteLength} bytes)` : said;
  return DlqRecordSchema.parse({
    specVersion: 1,
    sourceTopic: input.sourceTopic,
    partition: input.partition,
    offset: typeof input.offset === 'bigint' ? input.offset.toString() : input.offset,
    reasonCode: input.reasonCode,
    ...(input.decisionId !== undefined ? { decisionId: input.decisionId } : {}),
    ...(input.identitySha256 !== undefined ? { identitySha256: input.identitySha256 } : {}),
    detail,
    rawBase64: kept.toString('base64'),
    receivedAt: input.receivedAt.toISOString(),
  });
}

import { z } from 'zod';
import { JournalChain, JournalEntrySchema, type JournalEntry } from './journal-entry';
import { DecimalString, Rfc3339Utc, Sha256Hex } from './primitives';
import { SPEC_VERSION } from './reason-codes';

/**
 * A signed statement of a chain's head, published on the journal topic among the entries
 * (docs/journal-topic.md). It deliberately has neither `journalSeq` nor `kind`: a reader that
 * keys entries by journalSeq, or filters by kind, cannot take it for an entry.
 */
export const JOURNAL_CHECKPOINT_RECORD_TYPE = 'checkpoint';

/** Kafka header naming a journal topic record's type; only checkpoints carry it (entries predate it). */
export const JOURNAL_RECORD_TYPE_HEADER = 'arvis-record-type';

export const JournalCheckpointSignature = z.strictObject({
  keyId: z.string().min(1).max(200),
  /** Ed25519 over JCS(the checkpoint without `signature`), base64url, unpadded. */
  value: z.string().regex(/^[A-Za-z0-9_-]{86}$/, 'expected a base64url Ed25519 signature'),
});

export const JournalCheckpointSchema = z.strictObject({
  recordType: z.literal(JOURNAL_CHECKPOINT_RECORD_TYPE),
  specVersion: z.literal(SPEC_VERSION),
  chain: JournalChain,
  /** The journalSeq of the chain's last entry when signed. */
  seq: DecimalString,
  /** That entry's hash: it commits to every entry before it. */
  hash: Sha256Hex,
  signedAt: Rfc3339Utc,
  signature: JournalCheckpointSignature,
});
export type JournalCheckpoint = z.output<typeof JournalCheckpointSchema>;

/** Everything on the journal topic: an entry (no `recordType`) or a checkpoint. */
export type JournalTopicRecord =
  /** `raw` is the record as received: hashes are recomputed from it, never from the parsed copy. */
  | { recordType: 'entry'; entry: JournalEntry; raw: Record<string, unknown> }
  | { recordType: 'checkpoint'; checkpoint: JournalCheckpoint; raw: Record<string, unknown> }
  | { recordType: 'unreadable'; detail: string };

const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

/** Reads one journal topic message value. Never throws: anything else is `unreadable` with a reason. */
export function readJournalTopicRecord(value: Buffer | string | null | undefined): JournalTopicRecord {
  if (value === null || value === undefined) return { recordType: 'unreadable', detail: 'empty message' };
  let body: unknown;
  try {
    body = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    return { recordType: 'unreadable', detail: 'not JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { recordType: 'unreadable', detail: 'not a JSON object' };
  const raw = body as Record<string, unknown>;
  if (raw.recordType === JOURNAL_CHECKPOINT_RECORD_TYPE) {
    const parsed = JournalCheckpointSchema.safeParse(raw);
    return parsed.success ? { recordType: 'checkpoint', checkpoint: parsed.data, raw } : { recordType: 'unreadable', detail: `checkpoint: ${issues(parsed.error)}` };
  }
  if (raw.recordType !== undefined) return { recordType: 'unreadable', detail: `unknown recordType ${JSON.stringify(raw.recordType)}` };
  const parsed = JournalEntrySchema.safeParse(raw);
  return parsed.success ? { recordType: 'entry', entry: parsed.data, raw } : { recordType: 'unreadable', detail: `entry: ${issues(parsed.error)}` };
}

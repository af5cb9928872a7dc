import {
  JOURNAL_CHECKPOINT_RECORD_TYPE,
  JOURNAL_RECORD_TYPE_HEADER,
  JournalCheckpointSchema,
  SPEC_VERSION,
  type JournalCheckpoint,
} from '@arvis/contracts';
import { loadEd25519PrivateKey, signCanonical, type SigningKey } from '@arvis/crypto';
import type { Tx } from '@arvis/persistence';
import { enqueueOutbox } from '@arvis/outbox';

export interface CheckpointPolicy {
  keyId: string;
  /** Ed25519 private key, PEM or base64 pkcs8 DER. */
  privateKey: string;
  everyEntries: number;
  everyMs: number;
}

/** Transaction-scoped advisory lock: one checkpoint writer at a time (not the relay's key). */
export const CHECKPOINT_LOCK_KEY = 0x61726370;

interface Transactional {
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/** Due once `everyEntries` entries are unsigned, or the oldest unsigned one is `everyMs` old. */
export function checkpointDue(unsigned: bigint, oldestUnsignedAgeMs: number, policy: Pick<CheckpointPolicy, 'everyEntries' | 'everyMs'>): boolean {
  return unsigned > 0n && (unsigned >= BigInt(policy.everyEntries) || oldestUnsignedAgeMs >= policy.everyMs);
}

/**
 * Signs the journal's chain head and publishes it to the journal topic through the outbox
 * (ADR 0025). The checkpoint row and its outbox row commit together, after every entry the head
 * covers, so on the topic a checkpoint never precedes the entries it signs (per partition order
 * aside: readers order by journalSeq). Several processes may run one; the advisory lock and the
 * (chain, journal_seq) key let only one write a given checkpoint.
 */
export class JournalCheckpointer {
  private readonly key: SigningKey;

  constructor(
    private readonly db: Transactional,
    private readonly policy: CheckpointPolicy,
    private readonly journalTopic: string,
  ) {
    this.key = { keyId: policy.keyId, privateKey: loadEd25519PrivateKey(policy.privateKey) };
  }

  /** One pass: the checkpoint written, or null (nothing due, or another process holds the lock). */
  async checkpointIfDue(): Promise<JournalCheckpoint | null> {
    return this.db.tx(async (tx) => {
      const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${CHECKPOINT_LOCK_KEY}::bigint) AS ok`;
      if (!lock.ok) return null;
      const [head] = await tx.$queryRaw<{ chain: string; last_seq: bigint; last_hash: string; db_now: Date }[]>`
        SELECT chain, last_seq, last_hash, now() AS db_now FROM journal_head WHERE id = 1`;
      if (!head) throw new Error('journal_head row missing: run the migrations');
      const [last] = await tx.$queryRaw<{ journal_seq: bigint }[]>`
        SELECT journal_seq FROM journal_checkpoints WHERE chain = ${head.chain} ORDER BY journal_seq DESC LIMIT 1`;
      const lastSeq = last ? BigInt(last.journal_seq) : 0n;
      const headSeq = BigInt(head.last_seq);
      if (headSeq <= lastSeq) return null;
      const [oldest] = await tx.$queryRaw<{ age_ms: number }[]>`
        SELECT (extract(epoch FROM now() - recorded_at) * 1000)::float8 AS age_ms FROM journal WHERE journal_seq = ${lastSeq + 1n}`;
      if (!checkpointDue(headSeq - lastSeq, oldest?.age_ms ?? 0, this.policy)) return null;
      return this.write(tx, { chain: head.chain, seq: headSeq, hash: head.last_hash, signedAt: head.db_now });
    });
  }

  private async write(tx: Tx, h: { chain: string; seq: bigint; hash: string; signedAt: Date }): Promise<JournalCheckpoint> {
    const unsigned = {
      recordType: JOURNAL_CHECKPOINT_RECORD_TYPE,
      specVersion: SPEC_VERSION,
      chain: h.chain,
      seq: h.seq.toString(),
      hash: h.hash,
      signedAt: h.signedAt.toISOString(),
    };
    // Parsed before it leaves: a checkpoint readers would refuse is a fault here, not on the topic.
    const checkpoint = JournalCheckpointSchema.parse(signCanonical(unsigned, this.key));
    const payload = JSON.stringify(checkpoint);
    const inserted = await tx.$executeRaw`
      INSERT INTO journal_checkpoints (chain, journal_seq, hash, key_id, record, signed_at)
      VALUES (${h.chain}, ${h.seq}, ${h.hash}, ${this.key.keyId}, ${payload}, ${h.signedAt})`;
    if (inserted !== 1) throw new Error(`checkpoint ${h.chain}@${h.seq} not inserted`);
    await enqueueOutbox(tx, [
      { topic: this.journalTopic, key: h.chain, payload, headers: { [JOURNAL_RECORD_TYPE_HEADER]: JOURNAL_CHECKPOINT_RECORD_TYPE } },
    ]);
    return checkpoint;
  }
}

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
 * For unsigned entries not yet due: how long until the oldest of them is `everyMs` old, which
 * makes them due with no new entry (more entries come with a relay's publish, which wakes the
 * checkpointer anyway). Undefined when nothing is unsigned or it is due already.
 */
export function checkpointDueInMs(unsigned: bigint, oldestUnsignedAgeMs: number, policy: Pick<CheckpointPolicy, 'everyEntries' | 'everyMs'>): number | undefined {
  if (unsigned <= 0n || checkpointDue(unsigned, oldestUnsignedAgeMs, policy)) return undefined;
  return Math.ceil(policy.everyMs - oldestUnsignedAgeMs);
}

/**
 * Signs each journal chain's head and publishes it to the journal topic through the outbox
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

  /** One pass: the first checkpoint written, or null (nothing due, or another process holds the lock). */
  async checkpointIfDue(): Promise<JournalCheckpoint | null> {
    return (await this.checkpointChainsDue())[0] ?? null;
  }

  /**
   * One pass over every chain (ADR 0062: one checkpoint per chain, each signing its own head):
   * the checkpoints written, none when nothing is due or another process holds the lock.
   */
  async checkpointChainsDue(): Promise<JournalCheckpoint[]> {
    return (await this.checkpointPass()).written;
  }

  /**
   * checkpointChainsDue, also telling whether every chain's head was found signed (then nothing
   * can come due before new entries are appended: ADR 0059, the periodic pass may slow down) and,
   * when a chain's entries are unsigned but not due, in how long the first of them comes due by age.
   */
  async checkpointPass(): Promise<{ written: JournalCheckpoint[]; allSigned: boolean; dueInMs?: number }> {
    return this.db.tx(async (tx) => {
      const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${CHECKPOINT_LOCK_KEY}::bigint) AS ok`;
      if (!lock.ok) return { written: [], allSigned: false };
      // Not locked FOR UPDATE: a head read here was committed with every entry it covers.
      const heads = await tx.$queryRaw<{ chain: string; last_seq: bigint; last_hash: string; signed_seq: bigint | null; age_ms: number | null; db_now: Date }[]>`
        SELECT h.chain, h.last_seq, h.last_hash, c.seq AS signed_seq, now() AS db_now,
               (SELECT (extract(epoch FROM now() - j.recorded_at) * 1000)::float8 FROM journal j
                WHERE j.chain = h.chain AND j.journal_seq = coalesce(c.seq, 0) + 1) AS age_ms
        FROM journal_head h
        LEFT JOIN LATERAL (SELECT journal_seq AS seq FROM journal_checkpoints WHERE chain = h.chain ORDER BY journal_seq DESC LIMIT 1) c ON true
        ORDER BY h.shard`;
      if (heads.length === 0) throw new Error('journal_head rows missing: run the migrations');
      const written: JournalCheckpoint[] = [];
      let allSigned = true;
      let dueInMs: number | undefined;
      for (const head of heads) {
        const lastSeq = head.signed_seq === null ? 0n : BigInt(head.signed_seq);
        const headSeq = BigInt(head.last_seq);
        if (headSeq <= lastSeq) continue;
        const dueIn = checkpointDueInMs(headSeq - lastSeq, head.age_ms ?? 0, this.policy);
        if (dueIn !== undefined) {
          allSigned = false;
          dueInMs = Math.min(dueInMs ?? dueIn, dueIn);
          continue;
        }
        written.push(await this.write(tx, { chain: head.chain, seq: headSeq, hash: head.last_hash, signedAt: head.db_now }));
      }
      return { written, allSigned, ...(dueInMs === undefined ? {} : { dueInMs }) };
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

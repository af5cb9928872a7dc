import type { Tx } from '@arvis/persistence';

export interface OutboxRow {
  topic: string;
  key: string;
  payload: string;
  headers?: Record<string, string>;
  /** Set when the caller reserved the sequence (an intent's durable position is its outbox seq). */
  seq?: bigint;
}

/** Adds rows to the outbox inside the caller's transaction; they reach Kafka only if it commits. */
export async function enqueueOutbox(tx: Tx, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.outboxMessage.createMany({
    data: rows.map((r) => ({
      ...(r.seq !== undefined ? { seq: r.seq } : {}),
      topic: r.topic,
      messageKey: r.key,
      payload: r.payload,
      headers: r.headers ?? undefined,
    })),
  });
}

/** Reserves outbox sequence numbers ahead of the insert, so a message can carry its own position. */
export async function reserveOutboxSeqs(tx: Tx, n: number): Promise<bigint[]> {
  if (n === 0) return [];
  // nextval over a series: one round trip for the whole batch (Prisma has no API for sequences).
  const rows = await tx.$queryRaw<{ seq: bigint }[]>`
    SELECT nextval(pg_get_serial_sequence('outbox', 'seq')) AS seq FROM generate_series(1, ${n}::int)`;
  // Row order is not guaranteed to follow nextval order: sort, so that messages of one run
  // written in one transaction get positions in the order they were decided.
  return rows.map((r) => BigInt(r.seq)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** An unpublished outbox row as the relay first sees it: its position and its size on the wire. */
export interface CandidateRow {
  seq: string;
  bytes: number;
}

export interface BatchLimits {
  maxBatchBytes: number;
  maxMessageBytes: number;
  /** 1 while the relay isolates rows after the broker refused a multi-row send as too large. */
  maxRows: number;
}

export interface BatchPlan<T extends CandidateRow = CandidateRow> {
  /** Rows to send now, in seq order. */
  send: T[];
  /** Rows no broker within our limits will take: quarantine them, never send them. */
  tooLarge: T[];
  /** True if rows were left for the next batch because of the byte or row limit. */
  cut: boolean;
}

/**
 * Picks the rows of one send, in seq order, within the byte budget. The first row that fits the
 * message limit is always taken, even if alone it exceeds the batch budget, so a large row is
 * sent by itself rather than never. Rows above the message limit are set aside wherever they are:
 * skipping them keeps the others in order, since a quarantined row is never sent at all.
 */
export function planBatch<T extends CandidateRow>(candidates: T[], limits: BatchLimits): BatchPlan<T> {
  const send: T[] = [];
  const tooLarge: T[] = [];
  let bytes = 0;
  for (const row of candidates) {
    if (row.bytes > limits.maxMessageBytes) {
      tooLarge.push(row);
      continue;
    }
    if (send.length > 0 && (bytes + row.bytes > limits.maxBatchBytes || send.length >= limits.maxRows)) {
      return { send, tooLarge, cut: true };
    }
    send.push(row);
    bytes += row.bytes;
  }
  return { send, tooLarge, cut: false };
}

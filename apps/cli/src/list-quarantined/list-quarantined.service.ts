import type { Pool } from 'pg';

/** An outbox row the relay set aside because the broker can never accept it (ADR 0004). */
export interface QuarantinedRow {
  seq: string;
  topic: string;
  key: string;
  bytes: number;
  createdAt: string;
  quarantinedAt: string;
  reason: string;
}

/** Lists quarantined outbox rows, oldest first; the payload itself is left in the table. */
export class ListQuarantinedService {
  constructor(private readonly db: Pool) {}

  async list(): Promise<QuarantinedRow[]> {
    const { rows } = await this.db.query<QuarantinedRow>(
      `SELECT seq::text AS seq, topic, message_key AS key, octet_length(payload)::int AS bytes,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
              to_char(quarantined_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "quarantinedAt",
              coalesce(quarantine_reason, '') AS reason
       FROM outbox WHERE quarantined_at IS NOT NULL AND discarded_at IS NULL ORDER BY seq`,
    );
    return rows;
  }
}

export function renderQuarantined(rows: QuarantinedRow[]): string[] {
  if (rows.length === 0) return ['no quarantined outbox rows'];
  return [
    `${rows.length} quarantined outbox row(s):`,
    ...rows.map((r) => `  seq ${r.seq}  ${r.topic}  key ${r.key}  ${r.bytes} bytes  at ${r.quarantinedAt}  ${r.reason}`),
  ];
}

import type { Tx } from '@arvis/persistence';

/** A quarantined row as the operator sees it before acting on it. */
export interface QuarantinedOutboxRow {
  seq: string;
  topic: string;
  key: string;
  reason: string;
}

/**
 * An operator's remedies for a row the relay quarantined (ADR 0036), each one conditional UPDATE
 * returning the row it moved (none: it was not quarantined, or already published or discarded).
 * Release: the relay tries it again (after the cause was fixed, e.g. the broker's or the relay's
 * message size limit raised); if the broker still refuses it, it is quarantined again.
 * Discard: it is never sent and no longer listed; the row stays as the record of what was lost.
 */
export async function releaseQuarantined(tx: Tx, seq: string): Promise<QuarantinedOutboxRow | null> {
  const rows = await tx.$queryRaw<QuarantinedOutboxRow[]>`
    UPDATE outbox o SET quarantined_at = NULL, quarantine_reason = NULL
    FROM (SELECT seq, quarantine_reason FROM outbox WHERE seq = ${seq}::bigint FOR UPDATE) old
    WHERE o.seq = old.seq AND o.quarantined_at IS NOT NULL AND o.published_at IS NULL AND o.discarded_at IS NULL
    RETURNING o.seq::text AS seq, o.topic, o.message_key AS key, coalesce(old.quarantine_reason, '') AS reason`;
  return rows[0] ?? null;
}

export async function discardQuarantined(tx: Tx, seq: string): Promise<QuarantinedOutboxRow | null> {
  const rows = await tx.$queryRaw<QuarantinedOutboxRow[]>`
    UPDATE outbox SET discarded_at = now()
    WHERE seq = ${seq}::bigint AND quarantined_at IS NOT NULL AND published_at IS NULL AND discarded_at IS NULL
    RETURNING seq::text AS seq, topic, message_key AS key, coalesce(quarantine_reason, '') AS reason`;
  return rows[0] ?? null;
}

import { Injectable } from '@nestjs/common';
import type { Sql } from './sql';

/** An intent delivered again: its run (the message key), its stored signed message and its pool. */
export interface RedeliveredIntent {
  run_id: string;
  message: string;
  pool: string;
}

/**
 * The only writer of `intents` after its commit (ADR 0087). An intent is inserted by the
 * authorizer slice's one combined INSERT (ADR 0083, apps/authorizer/src/pipeline/commit-intent)
 * and deleted by retention (ADR 0041, retention-pruner.ts); in between, the one transition is a
 * delivery attempt of the dispatcher's redelivery (ADR 0011). Statements are moved here verbatim, whitespace
 * included: a statement's text names its prepared statement.
 */
@Injectable()
export class IntentStore {
  /**
   * One more delivery of each intent not yet delivered `maxAttempts` times, locked in id order;
   * rows another dispatcher holds are skipped (SKIP LOCKED), so fewer may move than given. Returns
   * the moved ones, to be enqueued again.
   */
  async markDelivered(tx: Sql, intentIds: string[], maxAttempts: number): Promise<RedeliveredIntent[]> {
    return tx.$queryRaw<RedeliveredIntent[]>`
      WITH due AS (
        SELECT intent_id FROM intents
        WHERE intent_id = ANY(${intentIds}::text[]) AND delivery_attempts < ${maxAttempts}
        ORDER BY intent_id FOR UPDATE SKIP LOCKED)
      UPDATE intents i SET last_delivered_at = now(), delivery_attempts = i.delivery_attempts + 1
      FROM due WHERE i.intent_id = due.intent_id
      RETURNING i.run_id, i.message, i.pool`;
  }
}

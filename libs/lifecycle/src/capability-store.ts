import { Injectable } from '@nestjs/common';
import type { ReasonCode } from '@arvis/contracts';
import { insertRows, rowsPart, type ColumnMap, type InsertPart, type Tx } from '@arvis/persistence';
import { ConfirmationStore } from './confirmation-store';
import { expectMoved, type Sql } from './sql';

/** A capability as the authorizer mints it, bound to its intent by its commitment. */
export interface MintedCapability {
  capabilityId: string;
  decisionId: string;
  intentId: string;
  commitment: string;
  /** The authorization snapshot (canonical JSON) the commitment binds; null for a placeholder. */
  snapshot: string | null;
}

const MINT_COLUMNS: ColumnMap<MintedCapability> = {
  capability_id: ['text', (c) => c.capabilityId],
  decision_id: ['text', (c) => c.decisionId],
  intent_id: ['text', (c) => c.intentId],
  state: ['text', () => 'minted'],
  commitment: ['text', (c) => c.commitment],
  snapshot: ['text', (c) => c.snapshot],
};

export interface CapabilityForActivation {
  capabilityId: string;
  commitment: string;
  snapshot: string | null;
}

export interface Activation {
  capabilityId: string;
  receiptId: string;
}

/** A capability the journal topic's lost entries show used (ADR 0055), settled as they say after a restore. */
export interface JournaledUse {
  capabilityId: string;
  /** The entry's time: when it was used, as near as the journal knows. */
  at: string;
  /** For a revocation: the refusal's reason code (null: capability_activation_failed). */
  reason?: ReasonCode | null;
}

/**
 * The only writer of `capabilities`: minted (authorizer) -> consumed (dispatcher: activation and
 * consumption in one statement), or minted -> revoked. Every batch change first locks its rows in
 * id order, so two dispatchers handling overlapping sets in different orders wait for each other
 * instead of deadlocking (an UPDATE ... = ANY(...) locks rows in whatever order its plan visits them).
 * After a restore from an older dump, an operator's reconciliation settles the capabilities the
 * journal topic shows used (consumeAsJournaled, revokeAsJournaled; ADR 0055). Retention deletes
 * them with their decision (ADR 0041, retention-pruner.ts).
 */
@Injectable()
export class CapabilityStore {
  constructor(private readonly confirmations: ConfirmationStore) {}

  /** New capabilities, state minted, in one statement (every row must go in). */
  async mint(tx: Tx, capabilities: readonly MintedCapability[]): Promise<void> {
    await insertRows(tx, 'capabilities', MINT_COLUMNS, capabilities);
  }

  /** The same mint as a part of a statement that inserts other tables' rows too (insertParts, ADR 0083). */
  mintPart(capabilities: readonly MintedCapability[]): InsertPart {
    return rowsPart('capabilities', MINT_COLUMNS, capabilities);
  }

  /** minted -> revoked, each with its own reason; every one must move. */
  async revokeEach(tx: Sql, revocations: readonly { capabilityId: string; reason: ReasonCode }[]): Promise<void> {
    if (revocations.length === 0) return;
    const revoked = await tx.$executeRaw`
      UPDATE capabilities SET state = 'revoked', revoked_reason = v.reason
      FROM unnest(${revocations.map((r) => r.capabilityId)}::text[], ${revocations.map((r) => r.reason)}::text[]) AS v(id, reason)
      WHERE capability_id = v.id AND state = 'minted'`;
    expectMoved('revoke minted capabilities', revoked, revocations.length);
  }

  async lockInOrder(tx: Sql, capabilityIds: readonly string[]): Promise<CapabilityForActivation[]> {
    if (capabilityIds.length === 0) return [];
    const rows = await tx.$queryRaw<{ capability_id: string; commitment: string; snapshot: string | null }[]>`
      SELECT capability_id, commitment, snapshot FROM capabilities
      WHERE capability_id = ANY(${[...capabilityIds]}::text[]) ORDER BY capability_id FOR UPDATE`;
    return rows.map((r) => ({ capabilityId: r.capability_id, commitment: r.commitment, snapshot: r.snapshot }));
  }

  /**
   * minted -> revoked before any effect, and the approval each one reserved released (reserved ->
   * approved): the one revocation every dispatcher path uses, so none can forget the release.
   * Returns the ids this call revoked (only they journal); a row no longer minted does not move.
   */
  async revoke(tx: Sql, capabilityIds: readonly string[], reason: ReasonCode): Promise<Set<string>> {
    if (capabilityIds.length === 0) return new Set();
    const rows = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE capabilities SET state = 'revoked', revoked_reason = ${reason}
      WHERE capability_id = ANY(${[...capabilityIds]}::text[]) AND state = 'minted'
      RETURNING capability_id`;
    const revoked = rows.map((r) => r.capability_id);
    await this.confirmations.finalize(tx, revoked, revoked.map(() => 'pre_effect_refusal'));
    return new Set(revoked);
  }

  /**
   * Activation and consumption as one conditional UPDATE: minted -> consumed by this dispatcher,
   * binding the receipt and stamping `activated_at` with `consumed_at`. A capability is bound only
   * to the receipt of its own intent (the join: the intent holding that receipt must be the one of
   * this capability); intents hold one receipt each and one capability each (both unique), so one
   * receipt activates at most one capability (ADR 0007, 0048). The returned ids are the winners:
   * the one statement that decides who runs the tool. A row not `minted` (consumed by another
   * dispatcher or an earlier delivery, or revoked), or presented with a receipt that is not its
   * intent's, does not move.
   */
  async activateAndConsume(tx: Sql, activations: readonly Activation[], dispatcherId: string): Promise<Set<string>> {
    if (activations.length === 0) return new Set();
    const consumed = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE capabilities c SET state = 'consumed', bound_receipt_id = i.receipt_id, activated_at = now(),
             consumed_by = ${dispatcherId}, consumed_at = now()
      FROM unnest(${activations.map((a) => a.capabilityId)}::text[], ${activations.map((a) => a.receiptId)}::text[]) AS v(capability_id, receipt_id)
      JOIN intents i ON i.receipt_id = v.receipt_id
      WHERE c.capability_id = v.capability_id AND i.capability_id = c.capability_id AND c.state = 'minted'
      RETURNING c.capability_id`;
    if (consumed.length > new Set(activations.map((a) => a.capabilityId)).size) throw new Error(`consume: moved ${consumed.length} row(s) for ${activations.length} activation(s)`);
    return new Set(consumed.map((r) => r.capability_id));
  }

  /**
   * After a restore from an older dump (ADR 0055): consumed as the dispatcher would have, bound to
   * the intent's receipt, at the entry's time, by `consumedBy`. Only rows not yet used move (one
   * the dump already held consumed stays as it is): at most as many as given, so the count is
   * checked as an upper bound. Returns the ids that moved.
   */
  async consumeAsJournaled(tx: Sql, caps: readonly JournaledUse[], consumedBy: string): Promise<string[]> {
    if (caps.length === 0) return [];
    const rows = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE capabilities c SET state = 'consumed', bound_receipt_id = i.receipt_id, activated_at = COALESCE(c.activated_at, v.at),
             consumed_by = ${consumedBy}, consumed_at = v.at
      FROM unnest(${caps.map((c) => c.capabilityId)}::text[], ${caps.map((c) => c.at)}::timestamptz[]) AS v(capability_id, at)
      JOIN intents i ON i.capability_id = v.capability_id
      WHERE c.capability_id = v.capability_id AND c.state IN ('minted', 'activated')
      RETURNING c.capability_id`;
    if (rows.length > caps.length) throw new Error(`consumed ${rows.length} capabilities for ${caps.length}`);
    return rows.map((r) => r.capability_id);
  }

  /** After a restore (ADR 0055): revoked with the refusal's reason, on the same terms as consumeAsJournaled. */
  async revokeAsJournaled(tx: Sql, caps: readonly JournaledUse[]): Promise<string[]> {
    if (caps.length === 0) return [];
    const rows = await tx.$queryRaw<{ capability_id: string }[]>`
      UPDATE capabilities c SET state = 'revoked', revoked_reason = v.reason
      FROM unnest(${caps.map((c) => c.capabilityId)}::text[], ${caps.map((c) => c.reason ?? 'capability_activation_failed')}::text[]) AS v(capability_id, reason)
      WHERE c.capability_id = v.capability_id AND c.state IN ('minted', 'activated')
      RETURNING c.capability_id`;
    if (rows.length > caps.length) throw new Error(`revoked ${rows.length} capabilities for ${caps.length}`);
    return rows.map((r) => r.capability_id);
  }
}

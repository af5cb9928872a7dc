import { Inject, Injectable } from '@nestjs/common';
import { appendJournal, capabilityRefusalEntry, type JournalDraft } from '@arvis/journal';
import { CapabilityStore, EffectStore, type DuplicateClaim } from '@arvis/lifecycle';
import { deadLetterRow, enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import { Database, StoreFingerprint, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import type { ServedPool } from '../../config/dispatcher-pools';
import { DeduplicateEffectsService } from '../deduplicate-effects/deduplicate-effects.service';
import { startDeadlineMs } from '../../execution/run-claimed/start-deadline';
import { factsOf, type ClaimedIntent } from '../../intake/dispatch-intents/claimed-intent';
import { matchStoredIntent } from '../../intake/verify-intent/match-stored-intent';
import { lockStoredIntents, type LockedIntent } from '../../intake/verify-intent/load-stored-intents';
import { checkStoredIntegrity } from '../../intake/verify-intent/stored-intent-integrity';
import type { VerifiedIntent } from '../../intake/verify-intent/verify-intent-messages';

interface Presented extends VerifiedIntent {
  stored: LockedIntent;
}

export interface ClaimOutcome {
  claimed: ClaimedIntent[];
  /** Presented with a capability another dispatcher (or an earlier delivery) already consumed. */
  lost: number;
  /** Ended here, before any effect: activation failed or the catalog diverged. */
  refused: number;
  /** Claims whose idempotency key another effect holds: they take its outcome, never run. */
  deduplicated: number;
  /** Claims already written effect_started (the first group's): their start committed with the claim. */
  started: ReadonlySet<string>;
}

/**
 * One transaction per slice: the signed messages are matched with their stored intents (a
 * mismatch is dead-lettered), each capability is checked against what was committed (a changed
 * row is revoked: capability_activation_failed), an intent from a catalog this dispatcher does not
 * accept is revoked (frozen_surface_diverged), and the rest are activated, consumed and claimed.
 */
@Injectable()
export class ClaimCapabilitiesService {
  /** Previous fingerprints a rolling deploy still accepts, of any pool (each names its pool's surface). */
  private readonly previousFingerprints: ReadonlySet<string>;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly storeFingerprint: StoreFingerprint,
    private readonly capabilities: CapabilityStore,
    private readonly effects: EffectStore,
    private readonly dedupe: DeduplicateEffectsService,
    private readonly catalog: ToolCatalog,
  ) {
    this.previousFingerprints = new Set(config.acceptedCatalogFingerprints);
  }

  /** `pool`: the pool whose topic the slice came from; only its stored intents are read (ADR 0081). */
  claim(verified: readonly VerifiedIntent[], deadLetters: OutboxRow[], pool: ServedPool): Promise<ClaimOutcome> {
    return this.db.tx(async (tx) => {
      const presented = await this.matchStored(tx, verified, deadLetters, pool);
      // One capability per intent: a duplicate message in the same slice is the same claim.
      const unique = [...new Map(presented.map((p) => [p.intent.capabilityId, p])).values()];
      const journal: JournalDraft[] = [];
      const intact: ClaimedIntent[] = [];
      const broken: { p: Presented; detail: string }[] = [];
      const diverged: Presented[] = [];
      for (const p of unique) {
        // Against the catalog of the intent's tool's pool (ADR 0080), or a previous one still accepted.
        const fingerprint = p.stored.catalogFingerprint;
        if (fingerprint !== this.catalog.fingerprintOf(p.stored.tool) && !this.previousFingerprints.has(fingerprint)) {
          diverged.push(p);
          continue;
        }
        const integrity = checkStoredIntegrity(p.stored, p.stored.capability);
        if (!integrity.ok) broken.push({ p, detail: integrity.detail });
        else {
          // A tool that dedupes by the key itself is safe to repeat; the others hold their key.
          const holdsKey = !this.catalog.get(p.stored.tool)?.idempotent;
          intact.push({ intent: p.intent, stored: p.stored, payload: integrity.payload, effectContext: integrity.effectContext, trace: p.trace, confirmationReserved: p.stored.confirmationReserved, holdsKey });
        }
      }
      journal.push(...(await this.revokeBroken(tx, broken)), ...(await this.revokeDiverged(tx, diverged)));
      const { mine, duplicates, started } = await this.consume(tx, intact, pool);
      const refused = journal.length;
      journal.push(...(await this.dedupe.settleDuplicates(tx, duplicates)));
      await enqueueOutbox(tx, deadLetters);
      await appendJournal(tx, journal, this.config.topics.journal);
      const waiting = new Set(duplicates.map((d) => d.capabilityId));
      return {
        claimed: mine.filter((m) => !waiting.has(m.intent.capabilityId)),
        lost: intact.length - mine.length,
        refused,
        deduplicated: duplicates.length,
        started: new Set([...started].filter((id) => !waiting.has(id))),
      };
    });
  }

  /** One statement reads the stored intents and locks their capabilities in id order (no deadlock between slices). */
  private async matchStored(tx: Tx, verified: readonly VerifiedIntent[], deadLetters: OutboxRow[], pool: ServedPool): Promise<Presented[]> {
    const rows = await lockStoredIntents(tx, verified.map((v) => v.intent.intentId), [pool.name]);
    const byId = new Map(rows.map((s) => [s.intentId, s]));
    // A receipt of another store: an operator may have rebound this one to it since (ADR 0036).
    if (verified.some((v) => !this.storeFingerprint.accepted.has(v.intent.receipt.storeFingerprint))) await this.storeFingerprint.refreshAccepted(tx);
    const presented: Presented[] = [];
    for (const v of verified) {
      const stored = byId.get(v.intent.intentId);
      // Not found: not stored, or another pool's intent on this pool's topic, which is left to its own pool.
      const mismatch = stored ? matchStoredIntent(v.intent, stored, this.storeFingerprint.accepted) : `no stored intent with this intentId in pool ${pool.name}`;
      if (mismatch) deadLetters.push(deadLetterRow(v.message, this.config.topics.intentsDlq, 'untrusted_tool_authorization_outcome', mismatch, new Date(), this.config.dlq.maxRawBytes));
      else presented.push({ ...v, stored: stored! });
    }
    return presented;
  }

  /** Only the revoking UPDATE journals, so a redelivered tampered intent ends its decision once. */
  private async revokeBroken(tx: Tx, broken: readonly { p: Presented; detail: string }[]): Promise<JournalDraft[]> {
    const revoked = await this.capabilities.revoke(tx, broken.map((b) => b.p.intent.capabilityId), 'capability_activation_failed');
    return broken
      .filter((b) => revoked.has(b.p.intent.capabilityId))
      .map((b) => capabilityRefusalEntry(factsOf(b.p), 'capability_activation_failed', `${b.detail}; revoked`));
  }

  private async revokeDiverged(tx: Tx, diverged: readonly Presented[]): Promise<JournalDraft[]> {
    const revoked = await this.capabilities.revoke(tx, diverged.map((d) => d.intent.capabilityId), 'frozen_surface_diverged');
    return diverged
      .filter((d) => revoked.has(d.intent.capabilityId))
      .map((d) => capabilityRefusalEntry(factsOf(d), 'frozen_surface_diverged', 'catalog fingerprint not accepted by this dispatcher'));
  }

  /**
   * Activate and consume (one UPDATE), then claim: the winners are this dispatcher's to run, but
   * for those whose idempotency key another live effect holds (duplicates, never run). The first
   * group's claims are written effect_started, so their start commits with the claim (one commit
   * fewer per slice); the rest are effect_pending until their group starts (ADR 0050).
   */
  private async consume(tx: Tx, intact: readonly ClaimedIntent[], pool: ServedPool): Promise<{ mine: ClaimedIntent[]; duplicates: DuplicateClaim[]; started: Set<string> }> {
    const won = await this.capabilities.activateAndConsume(
      tx,
      intact.map((c) => ({ capabilityId: c.intent.capabilityId, receiptId: c.intent.receipt.receiptId })),
      this.config.dispatcherId,
    );
    const mine = intact.filter((c) => won.has(c.intent.capabilityId));
    const started = new Set(mine.slice(0, this.config.toolConcurrency).map((m) => m.intent.capabilityId));
    const duplicates = await this.effects.claim(
      tx,
      mine.map((m) => ({
        capabilityId: m.intent.capabilityId,
        intentId: m.intent.intentId,
        decisionId: m.intent.decisionId,
        idempotencyKey: m.stored.idempotencyKey,
        holdsKey: m.holdsKey,
        pool: pool.name,
        ...(started.has(m.intent.capabilityId) ? { startDeadlineMs: startDeadlineMs(this.catalog, this.config, m.stored.tool) } : {}),
      })),
      this.config.dispatcherId,
      this.config.recovery.pendingGraceMs,
    );
    return { mine, duplicates, started };
  }
}

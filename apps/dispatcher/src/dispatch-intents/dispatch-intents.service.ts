import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  IntentMessageSchema,
  IntentSignatureSchema,
  parseInbound,
  type IntentMessage,
  type JournalEntryDraft,
  type ReasonCode,
} from '@arvis/contracts';
import {
  capabilityCommitmentOf,
  frozenPayloadFromCanonical,
  loadEd25519PublicKey,
  verifyCanonicalSignature,
  type AuthorizedEffectContext,
  type VerificationKeyring,
} from '@arvis/effect-context';
import { faultFor } from '@arvis/config';
import { appendJournal } from '@arvis/journal';
import { MetricsRegistry } from '@arvis/runtime';
import { Counter } from 'prom-client';
import type { InboundMessage, KafkaBatch } from '@arvis/kafka';
import { deadLetterRow, enqueueOutbox, type OutboxRow } from '@arvis/outbox';
import { PrismaService, StoreFingerprint, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import type { Classified } from '../classify-result/classify-result';
import { finalizeConfirmations } from '../classify-result/finalize-confirmations';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';
import { issueConsumptionProof } from '../run-tool/consumption-proof';
import { RunToolService } from '../run-tool/run-tool.service';
import { matchStoredIntent, type StoredIntent } from './verify-intent';

interface Verified {
  message: InboundMessage;
  intent: IntentMessage;
}

interface Won {
  intent: IntentMessage;
  stored: StoredIntent;
}

export interface DispatchOutcome {
  executed: number;
  lostConsumption: number;
  deadLettered: number;
  refused: number;
}

// Signature optional at parse time so that an unsigned message is refused as untrusted (what it
// is), not as malformed; verifyCanonicalSignature then refuses it.
const InboundIntentSchema = IntentMessageSchema.extend({ signature: IntentSignatureSchema.optional() });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One slice of arvis.intents: verify, activate and consume in one transaction (recording
 * effect_started), run the winners' tools on their own connections, then record results and
 * journal them in a second transaction. Offsets are committed after both.
 */
@Injectable()
export class DispatchIntentsService {
  private readonly log = new Logger(DispatchIntentsService.name);
  private readonly keyring: VerificationKeyring;
  private readonly acceptedFingerprints: ReadonlySet<string>;
  private readonly executedTotal: Counter;
  private readonly lostTotal: Counter;
  private readonly deadLetteredTotal: Counter;

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly prisma: PrismaService,
    private readonly store: StoreFingerprint,
    private readonly catalog: ToolCatalog,
    private readonly tools: RunToolService,
    metrics: MetricsRegistry,
  ) {
    this.executedTotal = new Counter({ name: 'arvis_effects_executed_total', help: 'Tool bodies run by this dispatcher', registers: [metrics] });
    this.lostTotal = new Counter({
      name: 'arvis_consumption_lost_total',
      help: 'Intents whose capability another dispatcher (or an earlier delivery) had already consumed',
      registers: [metrics],
    });
    this.deadLetteredTotal = new Counter({ name: 'arvis_intents_dead_lettered_total', help: 'Intent messages sent to the DLQ', registers: [metrics] });
    this.keyring = new Map(Object.entries(config.verificationKeys).map(([id, k]) => [id, loadEd25519PublicKey(k)]));
    this.acceptedFingerprints = new Set([catalog.fingerprint, ...config.acceptedCatalogFingerprints]);
  }

  async handle(batch: KafkaBatch): Promise<DispatchOutcome> {
    const now = new Date();
    const deadLetters: OutboxRow[] = [];
    const verified: Verified[] = [];
    for (const message of batch.messages) {
      const parsed = parseInbound(InboundIntentSchema, message.value, { maxBytes: this.config.maxIntentBytes });
      if (!parsed.ok) {
        deadLetters.push(this.deadLetter(message, parsed.reasonCode, parsed.detail, now));
        continue;
      }
      const intent = parsed.value as IntentMessage;
      const sig = verifyCanonicalSignature(intent as unknown as Record<string, unknown>, this.keyring);
      if (!sig.ok) {
        deadLetters.push(this.deadLetter(message, 'untrusted_tool_authorization_outcome', sig.detail, now));
        continue;
      }
      verified.push({ message, intent });
    }

    if (verified.some((v) => faultFor(this.config.faults.dispatcherCrashBeforeConsume, v.intent.decisionId))) {
      // Fault point: the intent arrived and nothing has been consumed or committed yet.
      process.kill(process.pid, 'SIGKILL');
    }

    const outcome: DispatchOutcome = { executed: 0, lostConsumption: 0, deadLettered: 0, refused: 0 };
    const won = await this.prisma.tx(async (tx) => {
      const stored = await tx.intent.findMany({ where: { intentId: { in: verified.map((v) => v.intent.intentId) } } });
      const byId = new Map(stored.map((s) => [s.intentId, s as StoredIntent]));
      const candidates: Won[] = [];
      const diverged: Won[] = [];
      for (const v of verified) {
        const s = byId.get(v.intent.intentId);
        const mismatch = matchStoredIntent(v.intent, s, this.store.value);
        if (mismatch) {
          deadLetters.push(this.deadLetter(v.message, 'untrusted_tool_authorization_outcome', mismatch, now));
          continue;
        }
        (this.acceptedFingerprints.has(s!.catalogFingerprint) ? candidates : diverged).push({ intent: v.intent, stored: s! });
      }
      const presented = [...new Map(candidates.map((c) => [c.intent.capabilityId, c])).values()];

      // The capability must still be exactly what was minted: its commitment is recomputed from
      // the stored intent and snapshot. One that is not is revoked, never activated, and its
      // decision ends in capability_activation_failed (once: only the revoking UPDATE journals).
      const caps = await tx.capability.findMany({
        where: { capabilityId: { in: presented.map((u) => u.intent.capabilityId) } },
        select: { capabilityId: true, commitment: true, snapshot: true },
      });
      const capById = new Map(caps.map((c) => [c.capabilityId, c]));
      const intactCap = (u: Won) => {
        const c = capById.get(u.intent.capabilityId);
        if (!c?.snapshot) return false;
        try {
          return (
            capabilityCommitmentOf({
              capabilityId: c.capabilityId,
              intentCommitment: u.stored.intentCommitment,
              effectContextCommitment: u.stored.effectContextCommitment,
              snapshot: JSON.parse(c.snapshot),
              idempotencyKey: u.stored.idempotencyKey,
            }) === c.commitment
          );
        } catch {
          return false;
        }
      };
      const intact = presented.filter(intactCap);
      const broken = presented.filter((u) => !intactCap(u));
      const failed = await tx.$queryRaw<{ capability_id: string }[]>`
        UPDATE capabilities SET state = 'revoked', revoked_reason = 'capability_activation_failed'
        WHERE capability_id = ANY(${broken.map((b) => b.intent.capabilityId)}::text[]) AND state IN ('minted', 'activated')
        RETURNING capability_id`;
      const failedIds = new Set(failed.map((f) => f.capability_id));
      await finalizeConfirmations(tx, [...failedIds], [...failedIds].map(() => 'pre_effect_refusal'));
      const activationFailures = broken
        .filter((b) => failedIds.has(b.intent.capabilityId))
        .map((b) =>
          this.resultEntry(b, {
            effectBoundary: 'pre_effect_refusal',
            success: false,
            reasonCode: 'capability_activation_failed',
            error: { code: 'capability_activation_failed', message: 'the capability does not match its commitment; revoked' },
          }, now),
        );

      // minted -> activated, binding the receipt; a receipt already bound elsewhere violates a
      // unique index, so one receipt activates at most one capability.
      const activated = await tx.$queryRaw<{ capability_id: string }[]>`
        UPDATE capabilities c SET state = 'activated', bound_receipt_id = v.receipt_id, activated_at = now()
        FROM unnest(${intact.map((u) => u.intent.capabilityId)}::text[], ${intact.map((u) => u.intent.receipt.receiptId)}::text[])
             AS v(capability_id, receipt_id)
        WHERE c.capability_id = v.capability_id AND c.state = 'minted'
        RETURNING c.capability_id`;
      // activated -> consumed: the one statement that decides who runs the tool.
      const consumed = await tx.$queryRaw<{ capability_id: string }[]>`
        UPDATE capabilities SET state = 'consumed', consumed_by = ${this.config.dispatcherId}, consumed_at = now()
        WHERE capability_id = ANY(${intact.map((u) => u.intent.capabilityId)}::text[]) AND state = 'activated'
        RETURNING capability_id`;
      // Activation and consumption share this transaction, so nothing else is ever left
      // 'activated': both statements must have moved the same rows.
      if (consumed.length !== activated.length) {
        throw new Error(`activated ${activated.length} capabilities but consumed ${consumed.length}`);
      }
      const winners = new Set(consumed.map((r) => r.capability_id));
      const mine = intact.filter((u) => winners.has(u.intent.capabilityId));
      outcome.lostConsumption = intact.length - mine.length;
      // effect_started commits with the consumption; its deadline (database time) is when
      // recovery may call the effect unknown: the tool's timeout plus a grace.
      const inserted = await tx.$executeRaw`
        INSERT INTO effects (capability_id, intent_id, decision_id, state, dispatcher_id, deadline_at)
        SELECT v.capability_id, v.intent_id, v.decision_id, 'effect_started', ${this.config.dispatcherId},
               now() + make_interval(secs => v.timeout_ms / 1000.0)
        FROM unnest(${mine.map((m) => m.intent.capabilityId)}::text[], ${mine.map((m) => m.intent.intentId)}::text[],
                    ${mine.map((m) => m.intent.decisionId)}::text[],
                    ${mine.map((m) => (this.catalog.get(m.stored.tool)?.timeoutMs ?? 0) + this.config.recovery.graceMs)}::int[])
             AS v(capability_id, intent_id, decision_id, timeout_ms)`;
      if (inserted !== mine.length) throw new Error(`recorded ${inserted} of ${mine.length} started effects`);

      // An intent minted against a catalog this dispatcher does not accept ends here, once.
      const revoked = await tx.$queryRaw<{ capability_id: string }[]>`
        UPDATE capabilities SET state = 'revoked', revoked_reason = 'frozen_surface_diverged'
        WHERE capability_id = ANY(${diverged.map((d) => d.intent.capabilityId)}::text[]) AND state = 'minted'
        RETURNING capability_id`;
      const revokedIds = new Set(revoked.map((r) => r.capability_id));
      const refusals = diverged
        .filter((d) => revokedIds.has(d.intent.capabilityId))
        .map((d) =>
          this.resultEntry(d, {
            effectBoundary: 'pre_effect_refusal',
            success: false,
            reasonCode: 'frozen_surface_diverged',
            error: { code: 'frozen_surface_diverged', message: 'catalog fingerprint not accepted by this dispatcher' },
          }, now),
        );
      outcome.refused = refusals.length;
      await finalizeConfirmations(tx, [...revokedIds], [...revokedIds].map(() => 'pre_effect_refusal'));
      await enqueueOutbox(tx, deadLetters);
      await appendJournal(tx, [...activationFailures, ...refusals], this.config.topics.journal);
      return mine;
    });
    outcome.deadLettered = deadLetters.length;

    const results = await this.runAll(won);
    outcome.executed = won.length;
    await this.recordResults(won, results);
    this.executedTotal.inc(outcome.executed);
    this.lostTotal.inc(outcome.lostConsumption);
    this.deadLetteredTotal.inc(outcome.deadLettered);
    if (deadLetters.length) this.log.warn(`${deadLetters.length} intent message(s) dead-lettered from ${batch.topic}[${batch.partition}]`);
    return outcome;
  }

  private async runAll(won: Won[]): Promise<Classified[]> {
    const results: Classified[] = new Array(won.length);
    let next = 0;
    const worker = async () => {
      while (next < won.length) {
        const i = next++;
        const { intent, stored } = won[i];
        results[i] = await this.tools.run(issueConsumptionProof(intent.capabilityId), {
          decisionId: intent.decisionId,
          capabilityId: intent.capabilityId,
          tool: stored.tool,
          payload: frozenPayloadFromCanonical(stored.payloadCanonical).value,
          effectContext: stored.effectContext as AuthorizedEffectContext,
          idempotencyKey: stored.idempotencyKey,
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.toolConcurrency, won.length) }, worker));
    return results;
  }

  /**
   * The effects already happened: recording them is retried here rather than by redelivery,
   * which would find the capabilities consumed and could not journal them again.
   */
  private async recordResults(won: Won[], results: Classified[]): Promise<void> {
    if (won.length === 0) return;
    const now = new Date();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.prisma.tx(async (tx) => {
          // Only rows still effect_started: recovery may already have called a slow one unknown,
          // and journaled it; that entry stands and this late result is not journaled again.
          const updated = await tx.$queryRaw<{ capability_id: string }[]>`
            UPDATE effects e SET state = v.state, reason_code = v.reason_code, finished_at = now()
            FROM unnest(${won.map((w) => w.intent.capabilityId)}::text[], ${results.map((r) => r.effectBoundary)}::text[],
                        ${results.map((r) => r.reasonCode ?? null)}::text[]) AS v(capability_id, state, reason_code)
            WHERE e.capability_id = v.capability_id AND e.state = 'effect_started'
            RETURNING e.capability_id`;
          const mine = new Set(updated.map((u) => u.capability_id));
          if (won.some((w) => faultFor(this.config.faults.journalResultFails, w.intent.decisionId))) {
            throw new Error('fault point: journaling the result fails');
          }
          if (mine.size < won.length) this.log.warn(`${won.length - mine.size} result(s) arrived after recovery had closed them`);
          await appendJournal(
            tx,
            won.flatMap((w, i) => (mine.has(w.intent.capabilityId) ? [this.resultEntry(w, results[i], now)] : [])),
            this.config.topics.journal,
          );
          const closed = won.map((w, i) => ({ w, r: results[i] })).filter(({ w }) => mine.has(w.intent.capabilityId));
          await finalizeConfirmations(tx, closed.map(({ w }) => w.intent.capabilityId), closed.map(({ r }) => r.effectBoundary));
          await this.requestRetries(tx, closed.filter(({ w, r }) => this.retryable(w, r)).map(({ w }) => w));
        });
        return;
      } catch (e) {
        if (attempt >= 5) return this.markAuditIncomplete(won, results, e as Error);
        this.log.warn(`recording ${won.length} result(s) failed (attempt ${attempt}): ${(e as Error).message}`);
        await sleep(200 * attempt);
      }
    }
  }

  /**
   * The effects happened but their results cannot be journaled: say so, visibly, on the run
   * and in the journal (a non-final audit_incomplete entry), and record the classified state so
   * recovery does not call them unknown. The effect is never refused after the fact.
   */
  private async markAuditIncomplete(won: Won[], results: Classified[], cause: Error): Promise<void> {
    const reason = `result not journaled: ${cause.message}`.slice(0, 500);
    this.log.error(`${won.length} effect result(s) could not be journaled; marking their runs audit-incomplete: ${cause.message}`);
    const now = new Date();
    await this.prisma.tx(async (tx) => {
      const runIds = [...new Set(won.map((w) => w.intent.runId))];
      await tx.$executeRaw`
        INSERT INTO runs (run_id, audit_incomplete, audit_incomplete_reason, updated_at)
        SELECT r, true, ${reason}, now() FROM unnest(${runIds}::text[]) AS r
        ON CONFLICT (run_id) DO UPDATE SET audit_incomplete = true, audit_incomplete_reason = EXCLUDED.audit_incomplete_reason, updated_at = now()`;
      await tx.$executeRaw`
        UPDATE effects e SET state = v.state, reason_code = 'audit_incomplete', finished_at = now()
        FROM unnest(${won.map((w) => w.intent.capabilityId)}::text[], ${results.map((r) => r.effectBoundary)}::text[]) AS v(capability_id, state)
        WHERE e.capability_id = v.capability_id AND e.state = 'effect_started'`;
      await finalizeConfirmations(tx, won.map((w) => w.intent.capabilityId), results.map((r) => r.effectBoundary));
      await appendJournal(
        tx,
        won.map(
          (w, i) =>
            ({
              ...this.resultEntry(w, results[i], now),
              kind: 'audit_incomplete',
              success: false,
              reasonCode: 'audit_incomplete',
              error: { code: 'audit_incomplete', message: reason },
            }) as JournalEntryDraft,
        ),
        this.config.topics.journal,
      );
    });
  }

  /** The spec's half of the reference's retry conditions; risk and attempts are checked in SQL. */
  private retryable(w: Won, r: Classified): boolean {
    const spec = this.catalog.get(w.stored.tool);
    return r.effectBoundary === 'effect_failed' && !!spec && spec.retryable && !(spec.sideEffectful && !spec.idempotent);
  }

  /**
   * A retry is a row, created with the failed result it answers: attempts are counted from the
   * retries table, and the risk comes from the decision as received. The authorizer's worker
   * turns each row into a new decision that goes through the whole path again.
   */
  private async requestRetries(tx: Tx, failed: Won[]): Promise<void> {
    if (failed.length === 0) return;
    await tx.$executeRaw`
      INSERT INTO retries (decision_id, chain_id, attempt, parent_decision_id, parent_causal_id, run_id, status)
      SELECT v.chain_id || ':retry:' || n.next_attempt, v.chain_id, n.next_attempt, v.decision_id, v.causal_id, v.run_id, 'pending'
      FROM unnest(${failed.map((w) => w.intent.decisionId)}::text[], ${failed.map((w) => w.intent.retry?.chainId ?? w.intent.decisionId)}::text[],
                  ${failed.map((w) => w.intent.causalId)}::text[], ${failed.map((w) => w.intent.runId)}::text[])
           AS v(decision_id, chain_id, causal_id, run_id)
      JOIN decision_inbox di ON di.decision_id = v.decision_id
      CROSS JOIN LATERAL (SELECT count(*)::int + 1 AS next_attempt FROM retries r WHERE r.chain_id = v.chain_id) n
      WHERE (di.body::jsonb ->> 'riskScore')::float8 <= ${this.config.retry.maxRisk}
        AND n.next_attempt < ${this.config.retry.maxAttempts}
      ON CONFLICT DO NOTHING`;
  }

  private resultEntry(w: Won, r: Classified, at: Date): JournalEntryDraft {
    return {
      kind: 'tool_result',
      decisionId: w.intent.decisionId,
      runId: w.intent.runId,
      causalId: w.intent.causalId,
      tenant: w.stored.tenant,
      principal: w.stored.principal,
      tool: w.stored.tool,
      capabilityId: w.intent.capabilityId,
      intentCommitment: w.stored.intentCommitment,
      idempotencyKey: w.stored.idempotencyKey,
      effectBoundary: r.effectBoundary,
      success: r.success,
      ...(r.output !== undefined ? { output: r.output } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.reasonCode ? { reasonCode: r.reasonCode } : {}),
      ...(r.latencyMs !== undefined ? { latencyMs: r.latencyMs } : {}),
      ...(w.intent.retry ? { retry: w.intent.retry } : {}),
      recordedAt: at.toISOString(),
    } as JournalEntryDraft;
  }

  private deadLetter(message: InboundMessage, reasonCode: ReasonCode, detail: string, receivedAt: Date): OutboxRow {
    return deadLetterRow(message, this.config.topics.intentsDlq, reasonCode, detail, receivedAt, this.config.dlq.maxRawBytes);
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { clipText, SPEC_VERSION, type IntentMessage, type UnsignedIntentMessage } from '@arvis/contracts';
import { capabilityCommitmentOf, effectContextCommitment, intentCommitmentOf, type IntentCommitmentMaterial } from '@arvis/effect-context';
import { canonicalJson, commitment, loadEd25519PrivateKey, signCanonicalText, type SigningKey } from '@arvis/crypto';
import { CapabilityStore, ConfirmationNotReservable, ConfirmationStore, type MintedCapability } from '@arvis/lifecycle';
import { outboxInsertFrom } from '@arvis/outbox';
import { insertParts, NeedsTransaction, Prisma, StoreFingerprint, unnestOf, type ColumnMap, type InsertPart, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import type { TraceCarrier } from '@arvis/tracing';
import type { Authorized } from '../../policy/authorize-decision/authorization.types';
import type { TraceOf } from '../decision-pipeline/decision-traces';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../../config/authorizer.config';
import { validateReceipt } from './validate-receipt';
import { intentRoutes, type IntentRoute } from './intent-routes';
import { IntentSink, IntentSinkError, type AbortedIntent, type CommitResult } from './intent-sink';
import { someIds } from '@arvis/runtime';

type Receipt = IntentMessage['receipt'];

/** An intent made and signed, not yet recorded. */
export interface Prepared {
  a: Authorized;
  intent: Prisma.IntentCreateManyInput;
  capability: MintedCapability;
  message: IntentMessage;
  /** The message's wire text: its canonical form, which the dispatcher verifies without canonicalising (ADR 0091). */
  messageText: string;
  /** The intents topic of the tool's pool (ADR 0080). */
  topic: string;
  /** Sent with the intent message as traceparent/tracestate (ADR 0028). */
  trace?: TraceCarrier;
}

const INTENT_COLUMNS: ColumnMap<Prepared> = {
  intent_id: ['text', (p) => p.intent.intentId],
  decision_id: ['text', (p) => p.intent.decisionId],
  capability_id: ['text', (p) => p.intent.capabilityId],
  run_id: ['text', (p) => p.intent.runId],
  causal_id: ['text', (p) => p.intent.causalId],
  tenant: ['text', (p) => p.intent.tenant],
  principal: ['text', (p) => p.intent.principal],
  tool: ['text', (p) => p.intent.tool],
  process_id: ['text', (p) => p.intent.processId],
  payload_canonical: ['text', (p) => p.intent.payloadCanonical],
  payload_sha256: ['text', (p) => p.intent.payloadSha256],
  effect_context: ['jsonb', (p) => JSON.stringify(p.intent.effectContext)],
  effect_context_commitment: ['text', (p) => p.intent.effectContextCommitment],
  idempotency_key: ['text', (p) => p.intent.idempotencyKey],
  catalog_fingerprint: ['text', (p) => p.intent.catalogFingerprint],
  intent_commitment: ['text', (p) => p.intent.intentCommitment],
  receipt_id: ['text', (p) => p.intent.receiptId],
  durable_position: ['bigint', (p) => p.intent.durablePosition],
  store_fingerprint: ['text', (p) => p.intent.storeFingerprint],
  committed_at: ['timestamptz', (p) => p.intent.committedAt],
  message: ['text', (p) => p.intent.message ?? null],
  pool: ['text', (p) => p.intent.pool!],
};


/**
 * The intents' rows and their messages' outbox rows, in one part of the slice's statement: the
 * outbox rows are built by PostgreSQL from the intents' own parameters (message, run, durable
 * position: the row's reserved outbox seq), so a message, the largest value of a slice, travels
 * to the database once (ADR 0088). Only the topic and the writer's trace context are added.
 */
function intentsPart(prepared: readonly Prepared[]): InsertPart {
  return {
    label: 'intents',
    rows: prepared.length,
    build: (after) => {
      const u = unnestOf(INTENT_COLUMNS, prepared, after);
      const n = after + u.params.length;
      const traced = prepared.some((p) => p.trace);
      return {
        sql: `INSERT INTO intents (${u.names.join(', ')}) SELECT * FROM ${u.sql}`,
        params: [...u.params, prepared.map((p) => p.topic), ...(traced ? [prepared.map((p) => (p.trace ? JSON.stringify(p.trace) : null))] : [])],
        also: [
          {
            label: 'outbox (intent messages)',
            rows: prepared.length,
            sql: outboxInsertFrom({
              from: `unnest(${u.ref('durable_position')}, ${u.ref('run_id')}, ${u.ref('message')}, $${n + 1}::text[]${traced ? `, $${n + 2}::jsonb[]` : ''})
                     AS m(seq, run_id, message, topic${traced ? ', trace_context' : ''})`,
              seq: 'm.seq',
              topic: 'm.topic',
              key: 'm.run_id',
              payload: 'm.message',
              traceContext: traced ? 'm.trace_context' : undefined,
            }),
          },
        ],
      };
    },
  };
}


/**
 * The intent sink: mints the capability and records the exact intent, its receipt and its
 * signed message in the caller's transaction. The message carries identifiers and hashes only;
 * the frozen payload stays in the intents table for the dispatcher. The receipt's durable
 * position is the outbox sequence, its store fingerprint the database's identity.
 *
 * Bound as the IntentSink. The test profile binds TamperingIntentSink (fault-points/) instead,
 * which extends this class and overrides its seams: the positions handed in to `commit`,
 * `receiptOf` and `record`. Nothing here consults a fault list.
 */
@Injectable()
export class CommitIntentService extends IntentSink {
  private readonly log = new Logger(CommitIntentService.name);
  private readonly signingKey: SigningKey;
  /** Tool name -> its route (ADR 0080), made once: routing an intent is one map lookup. */
  private readonly routes: ReadonlyMap<string, IntentRoute>;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly store: StoreFingerprint,
    catalog: ToolCatalog,
    private readonly confirmations: ConfirmationStore,
    private readonly capabilities: CapabilityStore,
  ) {
    super();
    this.signingKey = { keyId: config.signing.keyId, privateKey: loadEd25519PrivateKey(config.signing.privateKey) };
    this.routes = intentRoutes(catalog, config.topics);
  }

  private routeOf(a: Authorized): IntentRoute {
    const route = this.routes.get(a.spec.name);
    // The spec came from this catalog: a tool without a route is a programming error, not an outcome.
    if (!route) throw new Error(`tool ${a.spec.name} is not in the authorizer's catalog`);
    return route;
  }

  override async commit(tx: Tx, authorized: Authorized[], at: { committedAt: Date; positions: readonly bigint[] }, isolate: boolean, traceOf?: TraceOf): Promise<CommitResult> {
    if (authorized.length === 0) return { messages: [], aborted: [], inserts: [] };
    const { committedAt } = at;
    if (at.positions.length < authorized.length) throw new Error(`${at.positions.length} outbox positions reserved for ${authorized.length} intents`);
    const seqs = at.positions;
    const aborted: AbortedIntent[] = [];
    const accepted: Prepared[] = [];
    for (let i = 0; i < authorized.length; i++) {
      const p = this.prepare(authorized[i], seqs[i], committedAt);
      p.trace = traceOf?.(p.a.decision.decisionId);
      const reason = validateReceipt(p.message.receipt, {
        intentSha256: p.intent.intentCommitment,
        runId: p.a.decision.runId,
        causalId: p.a.decision.causalId,
        storeFingerprint: this.store.value,
      });
      if (reason) aborted.push({ authorized: p.a, reasonCode: 'invalid_audit_receipt', detail: `receipt refused: ${reason}`, receiptReason: reason });
      else accepted.push(p);
    }
    const recorded: Prepared[] = [];
    const inserts: InsertPart[] = [];
    if (!isolate) {
      try {
        inserts.push(...(await this.record(tx, accepted)));
        recorded.push(...accepted);
      } catch (e) {
        // A confirmation to reserve is a statement before the slice's last (ADR 0049): not the sink's failure.
        if (e instanceof NeedsTransaction) throw e;
        throw new IntentSinkError(e);
      }
    } else {
      for (const p of accepted) {
        await tx.$executeRawUnsafe('SAVEPOINT intent_sink');
        try {
          await insertParts(tx, await this.record(tx, [p]));
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT intent_sink');
          recorded.push(p);
        } catch (e) {
          await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT intent_sink');
          const text = String((e as Error)?.message ?? e);
          const reused = /durable_position|outbox_pkey/.test(text);
          aborted.push(
            e instanceof ConfirmationNotReservable
              ? { authorized: p.a, reasonCode: 'confirmation_required', detail: text }
              : {
                  authorized: p.a,
                  reasonCode: reused ? 'audit_receipt_position_reused' : 'audit_intent_failed',
                  detail: reused ? `durable position ${p.message.receipt.durablePosition} was already accepted` : `intent not recorded: ${clipText(text, 300)}`,
                },
          );
        }
      }
    }
    await this.revokeWithoutIntent(tx, aborted);
    return { messages: recorded.map((p) => p.message), aborted, inserts };
  }

  /** The committed material, once: it is hashed, stored as the intent row and echoed in the message. */
  private materialOf(a: Authorized, route: IntentRoute): IntentCommitmentMaterial {
    const d = a.decision;
    return {
      intentId: randomUUID(),
      capabilityId: randomUUID(),
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: a.identity.tenant,
      principal: a.identity.principal,
      tool: a.spec.name,
      processId: d.processId,
      payloadSha256: a.frozen.sha256,
      effectContextCommitment: effectContextCommitment(a.effectContext),
      idempotencyKey: a.idempotencyKey,
      // The tool's pool's fingerprint: a non-shared pool's manifest names the pool, so the signed
      // intent is bound to its pool without a new field (ADR 0080).
      catalogFingerprint: route.fingerprint,
    };
  }

  /** The intent message as signed: hashes and the receipt, never the payload. */
  private unsignedMessage(a: Authorized, m: IntentCommitmentMaterial, intentCommitment: string, receipt: IntentMessage['receipt']): UnsignedIntentMessage {
    const d = a.decision;
    return {
      specVersion: SPEC_VERSION,
      intentId: m.intentId,
      capabilityId: m.capabilityId,
      decisionId: d.decisionId,
      runId: d.runId,
      causalId: d.causalId,
      tenant: a.identity.tenant,
      tool: a.spec.name,
      intentCommitment,
      payloadSha256: a.frozen.sha256,
      effectContextCommitment: m.effectContextCommitment,
      idempotencyKey: a.idempotencyKey,
      catalogFingerprint: m.catalogFingerprint,
      receipt,
      ...('retry' in d && d.retry ? { retry: d.retry } : {}),
    } as UnsignedIntentMessage;
  }

  /**
   * The receipt of an intent: its durable position is the outbox sequence reserved for it, its
   * store fingerprint the database's identity. A seam: TamperingIntentSink alters one field.
   */
  protected receiptOf(a: Authorized, intentSha256: string, position: bigint, committedAt: Date): Receipt {
    return {
      receiptId: randomUUID(),
      runId: a.decision.runId,
      causalId: a.decision.causalId,
      intentSha256,
      durablePosition: position.toString(),
      storeFingerprint: this.store.value,
      committedAt: committedAt.toISOString(),
    };
  }

  private prepare(a: Authorized, position: bigint, committedAt: Date): Prepared {
    const d = a.decision;
    const route = this.routeOf(a);
    const material = this.materialOf(a, route);
    const { intentId, capabilityId, effectContextCommitment: ctxCommitment } = material;
    const intentCommitment = intentCommitmentOf(material);
    const receipt = this.receiptOf(a, intentCommitment, position, committedAt);
    const unsigned = this.unsignedMessage(a, material, intentCommitment, receipt);
    const snapshot = canonicalJson(a.snapshot);
    const { signed, text } = signCanonicalText(unsigned, this.signingKey);
    return {
      a,
      topic: route.topic,
      intent: {
        ...material,
        pool: route.pool,
        payloadCanonical: a.frozen.canonical,
        effectContext: a.effectContext as object,
        intentCommitment,
        receiptId: receipt.receiptId,
        durablePosition: position,
        storeFingerprint: this.store.value,
        committedAt,
      },
      capability: {
        capabilityId,
        decisionId: d.decisionId,
        intentId,
        // Binds invocation, effect context, snapshot and idempotency key: any change is visible.
        commitment: capabilityCommitmentOf({
          capabilityId,
          intentCommitment,
          effectContextCommitment: ctxCommitment,
          snapshotCanonical: snapshot,
          idempotencyKey: a.idempotencyKey,
        }),
        snapshot,
      },
      message: signed as IntentMessage,
      messageText: text,
    };
  }

  /**
   * The confirmations' reservation (done here), and the intents' rows with their messages'
   * outbox rows and the capabilities' rows, for the caller to insert in one statement with the
   * rest of its rows (ADR 0083). A seam: TamperingIntentSink fails here, before the insert.
   */
  protected async record(tx: Tx, prepared: Prepared[]): Promise<InsertPart[]> {
    if (prepared.length === 0) return [];
    for (const p of prepared) p.intent.message = p.messageText;
    // approved -> reserved by this capability, only for exactly this action and while the grant
    // lasts (database time); anything else leaves the confirmation untouched.
    await this.confirmations.reserve(
      tx,
      prepared.flatMap((p) =>
        p.a.confirmationId
          ? [{ confirmationId: p.a.confirmationId, capabilityId: p.capability.capabilityId, tool: p.a.spec.name, payloadSha256: p.a.frozen.sha256, principal: p.a.identity.principal, tenant: p.a.identity.tenant, issuer: p.a.identity.issuer }]
          : [],
      ),
    );
    return [intentsPart(prepared), this.capabilities.mintPart(prepared.map((p) => p.capability))];
  }

  override async revokeWithoutIntent(tx: Tx, aborted: AbortedIntent[]): Promise<void> {
    if (aborted.length === 0) return;
    const rows = aborted.map((x) => ({
      capabilityId: randomUUID(),
      decisionId: x.authorized.decision.decisionId,
      intentId: randomUUID(),
      commitment: commitment({ capabilityFormatVersion: 1, decisionId: x.authorized.decision.decisionId, aborted: x.reasonCode }),
      snapshot: null,
    }));
    await this.capabilities.mint(tx, rows);
    await this.capabilities.revokeEach(tx, rows.map((r, i) => ({ capabilityId: r.capabilityId, reason: aborted[i].reasonCode })));
    this.log.warn({
      msg: 'intents aborted',
      count: aborted.length,
      reasonCodes: [...new Set(aborted.map((x) => x.reasonCode))],
      decisionIds: someIds(aborted.map((x) => x.authorized.decision.decisionId)),
    });
  }
}

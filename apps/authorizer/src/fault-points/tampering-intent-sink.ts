import { faultFor, type Faults } from '@arvis/config';
import type { IntentMessage } from '@arvis/contracts';
import type { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import type { InsertPart, StoreFingerprint, Tx } from '@arvis/persistence';
import type { ToolCatalog } from '@arvis/tool-catalog';
import type { AuthorizerConfig } from '../config/authorizer.config';
import { CommitIntentService, type Prepared } from '../pipeline/commit-intent/commit-intent.service';
import type { CommitResult } from '../pipeline/commit-intent/intent-sink';
import type { TraceOf } from '../pipeline/decision-pipeline/decision-traces';
import type { Authorized } from '../policy/authorize-decision/authorization.types';

type Receipt = IntentMessage['receipt'];
type Field = NonNullable<Faults['receiptTamper']>[number]['field'];

/** One field of a receipt altered, per receiptTamper's `field`. */
function tampered(r: Receipt, field: Field): Receipt {
  switch (field) {
    case 'shape':
      return { ...r, extra: 'x' } as Receipt;
    case 'intent':
      return { ...r, intentSha256: '0'.repeat(64) };
    case 'run':
      return { ...r, runId: `${r.runId}-other` };
    case 'causal':
      return { ...r, causalId: `${r.causalId}-other` };
    case 'fingerprint':
      return { ...r, storeFingerprint: '1'.repeat(64) };
    default:
      // receiptId, causalId, durablePosition, storeFingerprint, committedAt: left empty.
      return { ...r, [field]: '' };
  }
}

/**
 * The intent sink of the test profile (ADR 0005): the real sink, with the sink's fault points
 * applied at its seams, for the decisions they name. Bound as the IntentSink only when fault
 * points are configured (pipeline.module.ts); the production profile refuses them and binds
 * CommitIntentService itself, so no production path reaches this class.
 *   receiptReusePosition  the position handed in is one an accepted intent already holds;
 *   receiptTamper         the receipt the sink made has one field altered;
 *   intentInsertFails     recording the intent fails, before its rows are inserted.
 * The guards that must catch them (validateReceipt, the unique positions, the savepoint rerun)
 * are the sink's own, unchanged.
 */
export class TamperingIntentSink extends CommitIntentService {
  private readonly faults: Faults;

  constructor(config: AuthorizerConfig, store: StoreFingerprint, catalog: ToolCatalog, confirmations: ConfirmationStore, capabilities: CapabilityStore) {
    super(config, store, catalog, confirmations, capabilities);
    this.faults = config.faults;
  }

  override async commit(tx: Tx, authorized: Authorized[], at: { committedAt: Date; positions: readonly bigint[] }, isolate: boolean, traceOf?: TraceOf): Promise<CommitResult> {
    const reuses = authorized.map((a) => faultFor(this.faults.receiptReusePosition, a.decision.decisionId) !== undefined);
    if (!reuses.includes(true)) return super.commit(tx, authorized, at, isolate, traceOf);
    // The largest position an accepted intent holds (none yet: the reserved one stays).
    const [prior] = await tx.$queryRaw<{ p: bigint | null }[]>`SELECT max(durable_position) AS p FROM intents`;
    if (prior?.p === null || prior?.p === undefined) return super.commit(tx, authorized, at, isolate, traceOf);
    const reused = BigInt(prior.p);
    return super.commit(tx, authorized, { ...at, positions: at.positions.map((seq, i) => (reuses[i] ? reused : seq)) }, isolate, traceOf);
  }

  protected override receiptOf(a: Authorized, intentSha256: string, position: bigint, committedAt: Date): Receipt {
    const receipt = super.receiptOf(a, intentSha256, position, committedAt);
    const fault = faultFor(this.faults.receiptTamper, a.decision.decisionId);
    return fault ? tampered(receipt, fault.field) : receipt;
  }

  protected override async record(tx: Tx, prepared: Prepared[]): Promise<InsertPart[]> {
    if (prepared.some((p) => faultFor(this.faults.intentInsertFails, p.a.decision.decisionId))) {
      await tx.$executeRawUnsafe(`DO $$ BEGIN RAISE EXCEPTION 'fault point: intent insert fails'; END $$`);
    }
    return super.record(tx, prepared);
  }
}

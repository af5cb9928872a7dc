import { faultFor, type Faults } from '@arvis/config';
import type { IntentMessage } from '@arvis/contracts';
import type { Tx } from '@arvis/persistence';

type Receipt = IntentMessage['receipt'];

/**
 * Named crash windows and sink failures of the authorizer, for fault specs. Injected: the
 * production profile gets NO_AUTHORIZER_FAULTS (configuration refuses faults there), so the
 * intake and the intent sink never consult a fault list, and the tampering lives here only.
 */
export abstract class AuthorizerFaultPoints {
  /** Handling this decision fails, every time (isolation is what gets tested). */
  abstract beforeHandling(decisionId: string): void;
  /** The durable position the sink hands out (a fault reuses one already given). */
  abstract position(tx: Tx, decisionId: string, seq: bigint): Promise<bigint>;
  /** Just before the intent rows are written (a fault makes the insert fail). */
  abstract beforeIntentInsert(tx: Tx, decisionId: string): Promise<void>;
  /** The receipt the sink returns (a fault alters one field). */
  abstract receipt(decisionId: string, r: Receipt): Receipt;
}

class NoFaults extends AuthorizerFaultPoints {
  beforeHandling(): void {}
  async position(_tx: Tx, _decisionId: string, seq: bigint): Promise<bigint> {
    return seq;
  }
  async beforeIntentInsert(): Promise<void> {}
  receipt(_decisionId: string, r: Receipt): Receipt {
    return r;
  }
}

export const NO_AUTHORIZER_FAULTS: AuthorizerFaultPoints = new NoFaults();

/** The test profile's fault points, read from ARVIS_FAULTS once at start-up. */
export class ConfiguredAuthorizerFaults extends AuthorizerFaultPoints {
  constructor(private readonly faults: Faults) {
    super();
  }

  beforeHandling(decisionId: string): void {
    if (faultFor(this.faults.decisionHandlingFails, decisionId)) throw new Error(`fault point decisionHandlingFails: ${decisionId}`);
  }

  async position(tx: Tx, decisionId: string, seq: bigint): Promise<bigint> {
    if (!faultFor(this.faults.receiptReusePosition, decisionId)) return seq;
    const prior = await tx.$queryRaw<{ p: bigint | null }[]>`SELECT max(durable_position) AS p FROM intents`;
    return prior[0]?.p !== null && prior[0]?.p !== undefined ? BigInt(prior[0].p) : seq;
  }

  async beforeIntentInsert(tx: Tx, decisionId: string): Promise<void> {
    if (faultFor(this.faults.intentInsertFails, decisionId)) {
      await tx.$executeRawUnsafe(`DO $$ BEGIN RAISE EXCEPTION 'fault point: intent insert fails'; END $$`);
    }
  }

  receipt(decisionId: string, r: Receipt): Receipt {
    const fault = faultFor(this.faults.receiptTamper, decisionId);
    if (!fault) return r;
    const edits: Record<string, Partial<Record<keyof Receipt, string>>> = {
      receiptId: { receiptId: '' },
      causalId: { causalId: '' },
      durablePosition: { durablePosition: '' },
      storeFingerprint: { storeFingerprint: '' },
      committedAt: { committedAt: '' },
      intent: { intentSha256: '0'.repeat(64) },
      run: { runId: `${r.runId}-other` },
      causal: { causalId: `${r.causalId}-other` },
      fingerprint: { storeFingerprint: '1'.repeat(64) },
    };
    if (fault.field === 'shape') return { ...r, extra: 'x' } as Receipt;
    return { ...r, ...edits[fault.field] };
  }
}

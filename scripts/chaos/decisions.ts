import type { DecisionInput } from '@arvis/decision-client';
import { intBetween, mulberry32, type Rng } from './prng';

/** Runs the load is spread over, so that decisions (keyed by runId) reach every partition. */
export const RUNS = 12;

export interface MixedDecision {
  tool: 'notes.append' | 'ledger.transfer' | 'flaky.record';
  payload: Record<string, unknown>;
  /** True when tool and payload repeat an earlier decision: same idempotency key, new decision. */
  repeat: boolean;
}

/**
 * The seeded traffic: mostly notes.append and ledger.transfer, some flaky.record (half of them
 * failing once, so that retries run), and 2 % repeats of an earlier decision's action under a new
 * decisionId, the case an idempotency key exists for.
 */
export class DecisionMix {
  private readonly rng: Rng;
  private readonly made: MixedDecision[] = [];

  constructor(seed: number, private readonly tag: string) {
    this.rng = mulberry32((seed ^ 0x9e3779b9) >>> 0);
  }

  next(): MixedDecision {
    const i = this.made.length;
    const r = this.rng();
    let d: MixedDecision;
    if (i > 20 && r < 0.02) {
      const earlier = this.made[intBetween(this.rng, 0, i - 1)];
      d = { tool: earlier.tool, payload: earlier.payload, repeat: true };
    } else if (r < 0.7) {
      d = { tool: 'notes.append', payload: { text: `chaos note ${i}`, ref: `${this.tag}:${i}` }, repeat: false };
    } else if (r < 0.9) {
      const payload = { from: 'acc-1', to: 'acc-2', amountMinor: intBetween(this.rng, 100, 99_999), currency: 'EUR', reference: `${this.tag}:${i}` };
      d = { tool: 'ledger.transfer', payload, repeat: false };
    } else {
      d = { tool: 'flaky.record', payload: { key: `${this.tag}:${i}`, failTimes: this.rng() < 0.5 ? 1 : 0 }, repeat: false };
    }
    this.made.push(d);
    return d;
  }
}

export function toDecision(tag: string, index: number, mixed: MixedDecision, identity: string): DecisionInput {
  return {
    decisionId: `${tag}:d${index}`,
    runId: `${tag}-run${index % RUNS}`,
    causalId: `c${index}`,
    tool: mixed.tool,
    payload: mixed.payload,
    riskScore: 0.1,
    identity,
  };
}

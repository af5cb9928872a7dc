import { canonicalJson } from '@arvis/crypto';
import { toolResultEntry } from '@arvis/journal';
import { classifyResult } from './classify-result';

// A tool's error text is the tool's: it may put an emoji across the 500th UTF-16 unit. Before,
// the classifier cut it there with slice(0, 500), leaving a lone surrogate, and the result entry
// could not be canonicalised, so the decision's result could never be journaled.
describe('a tool error whose text is cut inside an emoji', () => {
  it('is journaled, clipped whole code points', () => {
    const error = new Error(`${'x'.repeat(499)}😀 and more`);
    const classified = classifyResult({ kind: 'threw', error, latencyMs: 3 }, () => null);
    const facts = { decisionId: 'd', runId: 'r', causalId: 'c', tenant: 't', principal: 'p', tool: 'notes.append', capabilityId: 'cap', intentCommitment: 'a'.repeat(64), idempotencyKey: 'k'.repeat(64) };
    const entry = toolResultEntry(facts, classified);
    expect(() => canonicalJson(entry)).not.toThrow();
    expect(entry.error!.message.startsWith('x'.repeat(499))).toBe(true);
  });
});

describe('a body that refuses before acting', () => {
  const refused = (name: string, reasonCode: string) => Object.assign(new Error('the live tool differs from the snapshot'), { name, reasonCode });

  it('ends effect_not_started with its reason when it names a code a body may give', () => {
    const classified = classifyResult({ kind: 'threw', error: refused('EffectNotStartedError', 'frozen_surface_diverged'), latencyMs: 4 }, () => null);
    expect(classified).toMatchObject({ effectBoundary: 'effect_not_started', success: false, reasonCode: 'frozen_surface_diverged', latencyMs: 4 });
  });

  it('is a failed effect when the code is not one a body may give, or the error is not the refusal', () => {
    for (const error of [refused('EffectNotStartedError', 'consent_required'), refused('Error', 'frozen_surface_diverged')]) {
      expect(classifyResult({ kind: 'threw', error, latencyMs: 1 }, () => null)).toMatchObject({ effectBoundary: 'effect_failed', reasonCode: 'tool_execution_failed' });
    }
  });
});

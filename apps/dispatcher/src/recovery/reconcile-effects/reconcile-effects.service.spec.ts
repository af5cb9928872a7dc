import { z } from 'zod';
import { defineTool, ToolCatalog } from '@arvis/tool-catalog';
import type { LostEffect } from '@arvis/lifecycle';
import type { Reconciliation, ToolBody } from '../../execution/tools/tool-body';
import { ReconcileEffectsService } from './reconcile-effects.service';

const spec = (name: string) =>
  defineTool({
    name,
    description: name,
    input: z.strictObject({}),
    output: z.strictObject({ id: z.string() }),
    idempotent: true,
    retryable: true,
    sideEffectful: true,
    timeoutMs: 1000,
    maxRisk: 1,
    requiresConfirmation: false,
    auditRequired: true,
    reversible: false,
    manifest: { provider: null, dataEgress: false, dataClass: 'internal', requiredConsent: null },
    execute: async () => ({ id: 'never called here' }),
  });

const body = (name: string, answer: () => Promise<Reconciliation>): ToolBody => ({ name, execute: async () => ({}), reconcile: answer });
const lost = (tool: string, state: LostEffect['state'] = 'effect_started'): LostEffect => ({
  capabilityId: `cap-${tool}`,
  decisionId: `d-${tool}`,
  state,
  tool,
  idempotencyKey: 'idem:x',
});

describe('ReconcileEffectsService', () => {
  const service = new ReconcileEffectsService(new ToolCatalog(['found', 'none', 'unsure', 'bad', 'broken', 'silent'].map(spec)), [
    body('found', async () => ({ found: 'completed', output: { id: '7' } })),
    body('none', async () => ({ found: 'none' })),
    body('unsure', async () => ({ found: 'cannot_tell' })),
    body('bad', async () => ({ found: 'completed', output: { nope: 1 } })),
    body('broken', async () => {
      throw new Error('lookup failed');
    }),
    { name: 'silent', execute: async () => ({}) },
  ]);

  const verdictOf = async (l: LostEffect) => (await service.verdicts([l]))[0];

  it('closes a claim that never started as not started, without asking the tool', async () => {
    const v = await verdictOf(lost('found', 'effect_pending'));
    expect([v.effect.state, v.effect.reasonCode]).toEqual(['effect_not_started', 'dispatcher_lost_before_effect']);
  });

  it('takes a completed effect the tool found, with its output', async () => {
    const v = await verdictOf(lost('found'));
    expect(v.result).toEqual({ effectBoundary: 'effect_completed', success: true, output: { id: '7' } });
    expect(v.effect).toEqual({ capabilityId: 'cap-found', state: 'effect_completed', reasonCode: null });
  });

  it('calls an effect the tool certainly does not hold not started (so it may be retried)', async () => {
    const v = await verdictOf(lost('none'));
    expect([v.effect.state, v.result.reasonCode]).toEqual(['effect_not_started', 'dispatcher_lost_before_effect']);
  });

  it.each(['unsure', 'bad', 'broken', 'silent'])('leaves it unknown when the tool (%s) cannot tell', async (tool) => {
    const v = await verdictOf(lost(tool));
    expect([v.effect.state, v.result.reasonCode]).toEqual(['effect_state_unknown', 'dispatcher_lost_during_effect']);
  });

  it('closes a started effect whose start slot recovery took as not started, without asking the tool', async () => {
    let asked = false;
    const fencing = new ReconcileEffectsService(new ToolCatalog([spec('found')]), [
      body('found', async () => {
        asked = true;
        return { found: 'completed', output: { id: '7' } };
      }),
    ]);
    const [v] = await fencing.verdicts([lost('found')], new Set(['cap-found']));
    expect([v.effect.state, v.result.reasonCode, asked]).toEqual(['effect_not_started', 'dispatcher_lost_before_effect', false]);
  });
});

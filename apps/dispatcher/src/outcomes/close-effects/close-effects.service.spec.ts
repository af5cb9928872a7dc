import type { CapabilityFacts } from '@arvis/journal';
import { CloseEffectsService, type EffectClosing } from './close-effects.service';

const closing = (id: string, confirmationReserved: boolean, holdsKey: boolean, effectBoundary: EffectClosing['result']['effectBoundary'] = 'effect_completed'): EffectClosing => ({
  facts: { capabilityId: id, decisionId: `d-${id}`, runId: 'run', causalId: `c-${id}`, tenant: 'acme', principal: 'alice', tool: 'notes.append', intentCommitment: 'x', idempotencyKey: `k-${id}` } as CapabilityFacts,
  result: { effectBoundary, success: effectBoundary === 'effect_completed', output: {} },
  confirmationReserved,
  holdsKey,
});

function closer(spec: Record<string, unknown> = { retryable: true, sideEffectful: false, idempotent: true }) {
  const effects = {
    finish: jest.fn(async (_tx: unknown, rs: { capabilityId: string }[]) => new Set(rs.filter((r) => r.capabilityId !== 'cap-late').map((r) => r.capabilityId))),
    closeLost: jest.fn(async () => undefined),
    finishAuditIncomplete: jest.fn(async () => 1),
    closeWaiters: jest.fn(async () => []),
  };
  const confirmations = { finalize: jest.fn(async () => 0) };
  const retries = { request: jest.fn(async () => 0) };
  const service = new CloseEffectsService(effects as never, confirmations as never, retries as never, { get: () => spec } as never);
  return { service, effects, confirmations, retries };
}

describe('CloseEffectsService', () => {
  it('spends no confirmation or waiter statement on results that reserved no confirmation and hold no key', async () => {
    const { service, confirmations, effects } = closer();
    await service.closeWithResults({} as never, [closing('cap-1', false, false), closing('cap-2', false, false)]);
    expect(confirmations.finalize).toHaveBeenCalledWith({}, [], []);
    expect(effects.closeWaiters).not.toHaveBeenCalled();
  });

  it('settles the confirmations that were reserved and closes the waiters of key holders, and only those', async () => {
    const { service, confirmations, effects } = closer();
    await service.closeWithResults({} as never, [closing('cap-1', true, false), closing('cap-2', false, true), closing('cap-3', true, true)]);
    expect(confirmations.finalize).toHaveBeenCalledWith({}, ['cap-1', 'cap-3'], ['effect_completed', 'effect_completed']);
    expect(effects.closeWaiters).toHaveBeenCalledWith({}, [{ capabilityId: 'cap-2', state: 'effect_completed' }, { capabilityId: 'cap-3', state: 'effect_completed' }]);
  });

  it('issues the waiters\' close for every key holder together with the results\' close, before knowing which moved (one round trip)', async () => {
    const { service, effects } = closer();
    let moved: (ids: Set<string>) => void = () => {};
    effects.finish.mockImplementationOnce(() => new Promise((resolve) => (moved = resolve)));
    const closed = service.closeWithResults({} as never, [closing('cap-1', false, true), closing('cap-late', false, true)]);
    await Promise.resolve();
    // The results' close has not answered yet; the waiters' is already issued, for both holders.
    expect(effects.closeWaiters).toHaveBeenCalledWith({}, [
      { capabilityId: 'cap-1', state: 'effect_completed' },
      { capabilityId: 'cap-late', state: 'effect_completed' },
    ]);
    moved(new Set(['cap-1']));
    const { drafts, notMoved } = await closed;
    expect(drafts.map((d) => d.decisionId)).toEqual(['d-cap-1']);
    expect(notMoved.map((c) => c.facts.capabilityId)).toEqual(['cap-late']);
  });

  it('leaves a result recovery already closed to the caller, settling and journaling nothing for it', async () => {
    const { service, confirmations } = closer();
    const { drafts, notMoved } = await service.closeWithResults({} as never, [closing('cap-1', true, false), closing('cap-late', true, false)]);
    expect(notMoved.map((c) => c.facts.capabilityId)).toEqual(['cap-late']);
    expect(confirmations.finalize).toHaveBeenCalledWith({}, ['cap-1'], ['effect_completed']);
    expect(drafts.map((d) => d.decisionId)).toEqual(['d-cap-1']);
  });

  it('retries a body\'s failure only when its tool says repeating it is safe', async () => {
    const safe = closer();
    await safe.service.closeWithResults({} as never, [closing('cap-1', false, false, 'effect_failed'), closing('cap-2', false, false, 'effect_completed')]);
    expect(safe.retries.request).toHaveBeenCalledWith({}, [expect.objectContaining({ decisionId: 'd-cap-1' })]);
    const unsafe = closer({ retryable: true, sideEffectful: true, idempotent: false });
    await unsafe.service.closeWithResults({} as never, [closing('cap-1', false, false, 'effect_failed')]);
    expect(unsafe.retries.request).toHaveBeenCalledWith({}, []);
  });

  it('retries what recovery closed only when nothing ran', async () => {
    const { service, retries } = closer();
    await service.closeLost({} as never, [closing('cap-1', true, true, 'effect_not_started'), closing('cap-2', true, true, 'effect_state_unknown')]);
    expect(retries.request).toHaveBeenCalledWith({}, [expect.objectContaining({ decisionId: 'd-cap-1' })]);
  });

  it('journals an audit_incomplete entry, not the result, for results that could not be journaled, and never retries them', async () => {
    const { service, retries } = closer();
    const drafts = await service.closeAuditIncomplete({} as never, [closing('cap-1', false, false, 'effect_failed')], 'result not journaled: x');
    expect(drafts.map((d) => d.kind)).toEqual(['audit_incomplete']);
    expect(retries.request).toHaveBeenCalledWith({}, []);
  });

  // ADR 0076: the body's own word, or its tool's policy, ends the action; the policy goes with the request.
  it('never retries a non-retryable error or a code the policy names, and hands the policy with each retry', async () => {
    const retry = { initialIntervalMs: 1000, nonRetryableErrorCodes: ['card_declined'] };
    const { service, retries } = closer({ retryable: true, sideEffectful: false, idempotent: true, retry });
    const failed = (id: string, details?: Record<string, unknown>) => {
      const c = closing(id, false, false, 'effect_failed');
      return { ...c, result: { ...c.result, error: { code: 'tool_execution_failed' as const, message: 'x', ...(details ? { details } : {}) } } };
    };
    await service.closeWithResults({} as never, [
      failed('cap-1', { toolErrorCode: 'card_declined' }),
      failed('cap-2', { toolErrorCode: 'account_closed', nonRetryable: true }),
      failed('cap-3', { toolErrorCode: 'upstream_busy' }),
      failed('cap-4'),
    ]);
    expect(retries.request).toHaveBeenCalledWith({}, [
      expect.objectContaining({ decisionId: 'd-cap-3', policy: retry }),
      expect.objectContaining({ decisionId: 'd-cap-4', policy: retry }),
    ]);
  });
});

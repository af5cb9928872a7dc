import type { ClaimedIntent } from '../dispatch-intents/claimed-intent';
import { RecordResultsService, type RanIntent } from './record-results.service';

jest.mock('@arvis/journal', () => ({ ...jest.requireActual('@arvis/journal'), appendJournal: jest.fn(async () => []) }));

const ran = (id: string, confirmationReserved: boolean, holdsKey: boolean): RanIntent => ({
  claimed: {
    intent: { capabilityId: id, decisionId: `d-${id}`, runId: 'run', causalId: `c-${id}` },
    stored: { tool: 'notes.append', tenant: 'acme', principal: 'alice', intentCommitment: 'x', idempotencyKey: `k-${id}` },
    confirmationReserved,
    holdsKey,
  } as unknown as ClaimedIntent,
  result: { effectBoundary: 'effect_completed', success: true, output: {} },
});

function recorder() {
  const effects = { finish: jest.fn(async (_tx: unknown, rs: { capabilityId: string }[]) => new Set(rs.map((r) => r.capabilityId))) };
  const confirmations = { finalize: jest.fn(async () => 0) };
  const dedupe = { closeWaiters: jest.fn(async () => []) };
  const prisma = { tx: (fn: (tx: unknown) => Promise<unknown>) => fn({}) };
  const service = new RecordResultsService(
    { recording: { maxWaitMs: 1000 }, topics: { journal: 'journal' } } as never,
    prisma as never,
    effects as never,
    confirmations as never,
    { request: jest.fn(async () => 0) } as never,
    { get: () => ({ retryable: false }) } as never,
    { failRecording: () => undefined } as never,
    dedupe as never,
  );
  return { service, confirmations, dedupe };
}

describe('RecordResultsService', () => {
  it('hands the confirmation and waiter statements nothing for results that reserved no confirmation and hold no key', async () => {
    const { service, confirmations, dedupe } = recorder();
    await service.record([ran('cap-1', false, false), ran('cap-2', false, false)]);
    expect(confirmations.finalize).toHaveBeenCalledWith({}, [], []);
    expect(dedupe.closeWaiters).toHaveBeenCalledWith({}, []);
  });

  it('releases or spends the confirmations that were reserved and closes the waiters of key holders, and only those', async () => {
    const { service, confirmations, dedupe } = recorder();
    await service.record([ran('cap-1', true, false), ran('cap-2', false, true), ran('cap-3', true, true)]);
    expect(confirmations.finalize).toHaveBeenCalledWith({}, ['cap-1', 'cap-3'], ['effect_completed', 'effect_completed']);
    expect(dedupe.closeWaiters).toHaveBeenCalledWith({}, [expect.objectContaining({ capabilityId: 'cap-2' }), expect.objectContaining({ capabilityId: 'cap-3' })]);
  });
});

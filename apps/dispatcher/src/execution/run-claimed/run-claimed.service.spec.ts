import type { ClaimedIntent } from '../../intake/dispatch-intents/claimed-intent';
import { RunClaimedService } from './run-claimed.service';

const claimed = (n: number): ClaimedIntent[] =>
  Array.from({ length: n }, (_, i) => ({
    intent: { capabilityId: `cap-${i}`, decisionId: `d-${i}` },
    stored: { tool: 'notes.append', idempotencyKey: `k-${i}` },
    payload: { value: {} },
    effectContext: {},
    confirmationReserved: false,
    holdsKey: true,
  }) as unknown as ClaimedIntent);

function runner(events: string[], recorderRunsTheStart = true) {
  const effects = {
    start: jest.fn(async (_sql: unknown, group: { capabilityId: string }[]) => {
      events.push(`start ${group.map((g) => g.capabilityId).join(',')}`);
      return new Set(group.map((g) => g.capabilityId));
    }),
    extendPending: jest.fn(async () => 0),
  };
  const tools = { run: jest.fn(async (_proof: unknown, p: { capabilityId: string }) => (events.push(`body ${p.capabilityId}`), { effectBoundary: 'effect_completed' })) };
  // The recorder commits `also` (the next group's start) with the results, unless it had to split the group.
  const recorder = {
    record: jest.fn(async (ran: { claimed: ClaimedIntent }[], also?: (tx: unknown) => Promise<unknown>) => {
      events.push(`record ${ran.map((r) => r.claimed.intent.capabilityId).join(',')}${also && recorderRunsTheStart ? ' with' : ''}`);
      return also && recorderRunsTheStart ? also({}) : undefined;
    }),
  };
  const config = { toolConcurrency: 2, recording: { maxWaitMs: 1000 }, recovery: { graceMs: 10_000, pendingGraceMs: 30_000 } };
  const catalog = { get: () => ({ timeoutMs: 5000 }) };
  const tracing = { inSpans: (_n: string, _c: unknown, fn: () => unknown) => fn() };
  const service = new RunClaimedService(config as never, { sql: {} } as never, effects as never, catalog as never, tools as never, recorder as never, tracing as never);
  return { service, effects };
}

describe('RunClaimedService', () => {
  it('sends no start statement for the group the claim already started, and starts each later group in the recording of the one before', async () => {
    const events: string[] = [];
    const { service, effects } = runner(events);
    const ran = await service.run(claimed(5), new Set(['cap-0', 'cap-1']));
    expect(ran).toBe(5);
    expect(effects.start).toHaveBeenCalledTimes(2);
    expect(events).toEqual([
      'body cap-0', 'body cap-1', 'record cap-0,cap-1 with', 'start cap-2,cap-3',
      'body cap-2', 'body cap-3', 'record cap-2,cap-3 with', 'start cap-4',
      'body cap-4', 'record cap-4',
    ]);
  });

  it('starts a group on its own, before its bodies, when the recording before it did not commit the start', async () => {
    const events: string[] = [];
    const { service, effects } = runner(events, false);
    await service.run(claimed(4), new Set(['cap-0', 'cap-1']));
    expect(effects.start).toHaveBeenCalledTimes(1);
    expect(events).toEqual(['body cap-0', 'body cap-1', 'record cap-0,cap-1', 'start cap-2,cap-3', 'body cap-2', 'body cap-3', 'record cap-2,cap-3']);
  });

  it('starts the claims of a group the claim left pending, even beside ones it started', async () => {
    const events: string[] = [];
    const { service } = runner(events);
    // A duplicate among the first winners moves a pending claim into the first group.
    await service.run(claimed(2), new Set(['cap-0']));
    expect(events).toEqual(['start cap-1', 'body cap-0', 'body cap-1', 'record cap-0,cap-1']);
  });
});

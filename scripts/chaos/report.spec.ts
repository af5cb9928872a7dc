import { hostname } from 'node:os';
import type { UnknownEffect } from './measure';
import type { ExitRecord } from './processes';
import type { FaultRecord } from './faults';
import type { OperatorAct } from './operator';
import { operatorLine, pausedDispatcherIds, unknownByProcess } from './report';

const unknown = (pid: number, marked: boolean, acted: boolean): UnknownEffect => ({
  capabilityId: `cap-${Math.random()}`,
  decisionId: 'd',
  tool: 'notes.append',
  dispatcherId: `${hostname()}-${pid}`,
  marked,
  acted,
});
const exit = (pid: number, over: Partial<ExitRecord>): ExitRecord => ({ name: 'dispatcher-1', pid, code: null, signal: null, atMs: 0, caused: false, ...over });

describe('unknownByProcess', () => {
  it('groups unknown effects by the dispatcher process and says how that process ended', () => {
    const exits = [exit(10, { caused: true, signal: 'SIGKILL' }), exit(11, { name: 'dispatcher-2', code: 1 })];
    const rows = unknownByProcess([unknown(10, true, true), unknown(10, false, false), unknown(11, true, false), unknown(12, true, true)], exits);
    expect(rows).toEqual({
      'dispatcher-1 pid 10: killed -9 by the suite': { marked: 1, unmarked: 1, acted: 1 },
      'dispatcher-2 pid 11: exited by itself (code 1, signal null)': { marked: 1, unmarked: 0, acted: 0 },
      'dispatcher pid 12: still running': { marked: 1, unmarked: 0, acted: 1 },
    });
  });

  it('says a dispatcher was paused and resumed by the suite', () => {
    expect(unknownByProcess([unknown(13, true, true)], [], [13])).toEqual({ 'dispatcher pid 13: paused (SIGSTOP) and resumed by the suite': { marked: 1, unmarked: 0, acted: 1 } });
  });
});

describe('pausedDispatcherIds', () => {
  const fault = (kind: FaultRecord['kind'], pid?: number): FaultRecord => ({ kind, atMs: 0, pauseMs: 10_000, startedAtMs: 0, endedAtMs: 0, detail: '', ...(pid ? { pid } : {}) });

  it('names the dispatchers paused and resumed, not one killed -9 afterwards nor a paused authorizer', () => {
    const faults = [fault('pause-dispatcher', 20), fault('pause-dispatcher', 21), fault('pause-app', 22), fault('kill-dispatcher'), fault('pause-dispatcher')];
    const exits = [exit(21, { caused: true, signal: 'SIGKILL' }), exit(20, { caused: true, signal: 'SIGTERM' })];
    expect(pausedDispatcherIds(faults, exits)).toEqual([`${hostname()}-20`]);
  });
});

describe('operatorLine', () => {
  const act = (kind: OperatorAct['kind'], status: number, outcome: string): OperatorAct => ({ atMs: 0, kind, target: 'd', status, outcome });

  it("shows the operator's acts by kind and outcome, its resolutions and the dead letters", () => {
    const acts = [act('resolve-not-happened', 409, 'effect_may_still_run'), act('resolve-not-happened', 409, 'effect_may_still_run'), act('resolve-not-happened', 200, 'ok'), act('resolve-completed', 200, 'ok')];
    expect(operatorLine(acts, 9, { completed: 1, notHappened: 1, notHappenedWhileMayRun: 0 }, 0)).toBe(
      'operator: 9 look(s), 4 act(s) (1x resolve-completed 200 ok, 1x resolve-not-happened 200 ok, 2x resolve-not-happened 409 effect_may_still_run); resolved 1 completed, 1 not happened; no dead letters to re-drive',
    );
    expect(operatorLine([], 0, { completed: 0, notHappened: 0, notHappenedWhileMayRun: 0 }, 2)).toBe('operator: 0 look(s), 0 act(s); resolved 0 completed, 0 not happened; 2 dead letter(s), not re-driven by the suite');
  });
});

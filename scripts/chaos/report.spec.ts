import { hostname } from 'node:os';
import type { UnknownEffect } from './measure';
import type { ExitRecord } from './processes';
import { unknownByProcess } from './report';

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
});

import type { JournalEntry } from '@arvis/contracts';
import { decisionsFinalTotal, decisionToFinalSeconds, observeFinal } from './journal-metrics';

const entry = (kind: string, tool: string, reasonCode?: string) => ({ kind, tool, ...(reasonCode ? { reasonCode } : {}) }) as unknown as JournalEntry;
const counted = async () =>
  Object.fromEntries((await decisionsFinalTotal.get()).values.map((v) => [`${v.labels.kind}/${v.labels.reason_code}/${v.labels.tool}`, v.value]));
const latency = async () => {
  const values = (await decisionToFinalSeconds.get()).values;
  return { count: values.find((v) => v.metricName?.endsWith('_count'))?.value, sum: values.find((v) => v.metricName?.endsWith('_sum'))?.value };
};

describe('journal metrics', () => {
  beforeEach(() => {
    decisionsFinalTotal.reset();
    decisionToFinalSeconds.reset();
  });

  it('counts each final entry once by kind, reason code (none for a success) and tool, and no other kind', async () => {
    const at = new Date('2026-12-02T00:00:10Z');
    observeFinal(entry('tool_result', 'notes.append'), at, undefined);
    observeFinal(entry('tool_result', 'notes.append', 'tool_timeout'), at, undefined);
    observeFinal(entry('authorization_refusal', 'mail.send', 'policy_denied'), at, undefined);
    observeFinal(entry('effect_started', 'notes.append'), at, undefined);
    observeFinal(entry('operator_action', 'arvis.operator', 'operator_action'), at, undefined);
    expect(await counted()).toEqual({
      'tool_result/none/notes.append': 1,
      'tool_result/tool_timeout/notes.append': 1,
      'authorization_refusal/policy_denied/mail.send': 1,
    });
  });

  it('observes decision-to-final latency in seconds only where the admission time is known', async () => {
    observeFinal(entry('tool_result', 'notes.append'), new Date('2026-12-02T00:00:02.500Z'), new Date('2026-12-02T00:00:00Z'));
    observeFinal(entry('admission_refusal', 'notes.append', 'rate_limited'), new Date('2026-12-02T00:00:05Z'), undefined);
    expect(await latency()).toEqual({ count: 1, sum: 2.5 });
  });

  it('keeps the tool label bounded: past 100 distinct names the rest are counted as other', async () => {
    // A fresh module: the names the other cases used are not among its first 100.
    let fresh!: typeof import('./journal-metrics');
    jest.isolateModules(() => {
      fresh = jest.requireActual<typeof import('./journal-metrics')>('./journal-metrics');
    });
    const at = new Date();
    for (let i = 0; i < 150; i++) fresh.observeFinal(entry('authorization_refusal', `made.up.${i}`, 'tool_unknown'), at, undefined);
    const series = Object.fromEntries((await fresh.decisionsFinalTotal.get()).values.map((v) => [`${v.labels.kind}/${v.labels.reason_code}/${v.labels.tool}`, v.value]));
    expect(Object.keys(series).length).toBe(101);
    expect(series['authorization_refusal/tool_unknown/other']).toBe(50);
    expect(series['authorization_refusal/tool_unknown/made.up.99']).toBe(1);
  });
});

import { z } from 'zod';
import { defineTool } from '../tool';
import { NonRetryableToolError } from '../tool-error';
import { runTool, type LoggedLine } from './index';

const tool = defineTool({
  name: 'test.kit',
  description: 'a body for the testing kit',
  input: z.strictObject({ runMs: z.number().int(), fail: z.boolean().optional() }),
  output: z.strictObject({ attempt: z.number().int() }),
  idempotent: true,
  retryable: true,
  sideEffectful: false,
  timeoutMs: 60,
  maxRunMs: 1000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  async execute({ input, attempt, heartbeat, logger, signal }) {
    logger.info('started', { attempt });
    if (input.fail) throw new NonRetryableToolError('closed', 'the account is closed');
    const started = Date.now();
    while (Date.now() - started < input.runMs && !signal.aborted) {
      heartbeat();
      await new Promise((r) => setTimeout(r, 10));
    }
    return { attempt };
  },
});

describe('runTool (@arvis/tool-sdk/testing)', () => {
  it('runs the body as the dispatcher does: heartbeats keep it past its timeout, its output parsed, its lines logged', async () => {
    const logs: LoggedLine[] = [];
    const r = await runTool(tool, { runMs: 200 }, { attempt: 3, logs });
    expect(r).toMatchObject({ effectBoundary: 'effect_completed', success: true, output: { attempt: 3 } });
    expect(logs).toEqual([{ level: 'info', msg: 'started', fields: { attempt: 3 } }]);
  });

  it('times the body out when its heartbeats are not written, and classifies a failure and a refused input', async () => {
    expect(await runTool(tool, { runMs: 500 }, { extendDeadline: async () => false })).toMatchObject({ effectBoundary: 'effect_state_unknown', reasonCode: 'tool_timeout' });
    expect(await runTool(tool, { runMs: 0, fail: true })).toMatchObject({
      effectBoundary: 'effect_failed',
      reasonCode: 'tool_execution_failed',
      error: { details: { toolErrorCode: 'closed', nonRetryable: true } },
    });
    expect(await runTool(tool, { runMs: 'x' })).toMatchObject({ effectBoundary: 'pre_effect_refusal', reasonCode: 'input_schema_violation' });
  });
});

// A fixture package for a tool's own retry policy (ADR 0076) and for heartbeats (ADR 0077). Plain
// CommonJS, loaded beside the demo package through ARVIS_TOOL_PACKAGES, as an installed package is;
// its errors come from the built SDK, as a package's would come from its copy of @arvis/tool-sdk.
const { z } = require('zod');
const { ToolError, NonRetryableToolError } = require('../../../../dist/libs/tool-sdk/src');

const common = {
  idempotent: true,
  sideEffectful: false,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: Object.freeze({ provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null }),
};

// Calls per idempotency key, in the dispatcher's memory: the fixture owns no table.
const calls = new Map();

const policyFlaky = Object.freeze({
  ...common,
  name: 'policy.flaky',
  description: 'Fails its first failTimes calls per idempotency key with the error asked for, then succeeds',
  input: z.strictObject({ failTimes: z.number().int().min(0).max(5), failWith: z.enum(['transient', 'declined', 'final']) }),
  output: z.strictObject({ calls: z.number().int() }),
  retryable: true,
  timeoutMs: 5000,
  retry: Object.freeze({ maxAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 60000, nonRetryableErrorCodes: Object.freeze(['card_declined']) }),
  async execute({ input, idempotencyKey }) {
    const n = (calls.get(idempotencyKey) ?? 0) + 1;
    calls.set(idempotencyKey, n);
    if (n > input.failTimes) return { calls: n };
    if (input.failWith === 'declined') throw new ToolError('card_declined', 'the card was declined');
    if (input.failWith === 'final') throw new NonRetryableToolError('account_closed', 'the account is closed');
    throw new ToolError('upstream_busy', `upstream busy (call ${n})`);
  },
});

// The same body under a policy whose maximum interval binds from the second retry: 200 ms, then
// 200 x 5 = 1000 ms capped to 600 ms, then 5000 ms capped to 600 ms.
const policyCapped = Object.freeze({
  ...policyFlaky,
  name: 'policy.capped',
  description: 'As policy.flaky, under a backoff that reaches its maximum interval',
  retry: Object.freeze({ maxAttempts: 4, initialIntervalMs: 200, backoffCoefficient: 5, maxIntervalMs: 600 }),
});

const longHeartbeat = Object.freeze({
  ...common,
  name: 'long.heartbeat',
  description: 'Runs runMs, calling heartbeat() every 200 ms for its first beatForMs; stops at its abort',
  input: z.strictObject({ runMs: z.number().int().min(0).max(60000), beatForMs: z.number().int().min(0).max(60000) }),
  output: z.strictObject({ ranMs: z.number().int() }),
  retryable: false,
  timeoutMs: 1500,
  maxRunMs: 30000,
  async execute({ input, signal, heartbeat, logger, attempt }) {
    const started = Date.now();
    logger.info('long body started', { attempt });
    while (Date.now() - started < input.runMs) {
      if (signal.aborted) throw new Error('aborted');
      if (Date.now() - started < input.beatForMs) heartbeat();
      await new Promise((r) => setTimeout(r, 200));
    }
    return { ranMs: Date.now() - started };
  },
});

module.exports.toolPackage = Object.freeze({ name: '@arvis/tool-retry-heartbeat', version: '1.0.0', tools: Object.freeze([policyFlaky, policyCapped, longHeartbeat]) });

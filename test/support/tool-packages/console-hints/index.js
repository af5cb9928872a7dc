// A fixture package for the approver console (ADR 0069): one irreversible tool that needs a
// confirmation and declares a display hint of each kind (money, timestamp, enumeration). Plain
// CommonJS, loaded beside the demo package through ARVIS_TOOL_PACKAGES, as an installed package is.
const { z } = require('zod');

const paymentSchedule = Object.freeze({
  name: 'payment.schedule',
  description: 'Schedules an outgoing payment (a fixture: it records nothing)',
  input: z.strictObject({
    to: z.string().min(1).max(64),
    amountMinor: z.number().int().positive(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    executeAtMs: z.number().int().positive(),
    priority: z.enum(['normal', 'urgent']),
  }),
  output: z.strictObject({ scheduled: z.boolean() }),
  idempotent: true,
  retryable: false,
  sideEffectful: true,
  timeoutMs: 5000,
  maxRisk: 0.8,
  requiresConfirmation: true,
  auditRequired: true,
  reversible: false,
  manifest: Object.freeze({ provider: null, dataEgress: false, dataClass: 'financial', requiredConsent: null }),
  display: Object.freeze({
    amountMinor: { kind: 'money', currencyField: 'currency' },
    executeAtMs: { kind: 'timestamp', unit: 'ms' },
    priority: { kind: 'enum', labels: { normal: 'Normal: next settlement run', urgent: 'Urgent: instant payment, cannot be recalled' } },
  }),
  async execute() {
    return { scheduled: true };
  },
});

module.exports.toolPackage = Object.freeze({ name: '@arvis/tool-console-hints', version: '1.0.0', tools: Object.freeze([paymentSchedule]) });

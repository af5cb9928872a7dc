// A fixture package in a dispatcher pool of its own (ADR 0080): its tools' intents go to
// `<intents>.pool.ledger`, with the ledger pool's catalog fingerprint. Plain CommonJS, loaded beside
// the demo package through ARVIS_TOOL_PACKAGES, as an installed package is.
const { z } = require('zod');

const echo = Object.freeze({
  name: 'pooled.echo',
  description: 'Returns its text; runs in the ledger pool',
  input: z.strictObject({ text: z.string().max(200) }),
  output: z.strictObject({ text: z.string() }),
  idempotent: true,
  retryable: false,
  sideEffectful: false,
  timeoutMs: 5000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: Object.freeze({ provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null }),
  async execute({ input }) {
    return { text: input.text };
  },
});

module.exports = { toolPackage: Object.freeze({ name: 'routed-pool', version: '1.0.0', pool: 'ledger', tools: Object.freeze([echo]) }) };

// Fixture packages for tool pools (ADR 0081): one package per pool, each tool echoing its text and
// its pool. Plain CommonJS, loaded through ARVIS_TOOL_PACKAGES, as an installed package is; the
// pool-alpha-next fixture is this package at its next version (a longer text: another fingerprint).
const { z } = require('zod');

/** An echo tool of `pool`, taking texts up to `maxText` characters. */
function echoPackage(pool, version, maxText) {
  const echo = Object.freeze({
    name: `${pool}.echo`,
    description: `Echoes its text from the ${pool} pool`,
    input: z.strictObject({ text: z.string().min(1).max(maxText) }),
    output: z.strictObject({ text: z.string(), pool: z.string() }),
    idempotent: true,
    retryable: false,
    sideEffectful: false,
    timeoutMs: 3000,
    maxRisk: 1,
    requiresConfirmation: false,
    auditRequired: false,
    reversible: true,
    manifest: Object.freeze({ provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null }),
    async execute({ input }) {
      return { text: input.text, pool };
    },
  });
  return Object.freeze({ name: `@arvis/tool-pool-${pool}`, version, pool, tools: Object.freeze([echo]) });
}

module.exports = { echoPackage, toolPackage: echoPackage('alpha', '1.0.0', 200) };

import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';

/** A tool that does nothing and declares nothing: what a module-wiring spec needs to build a catalog. */
export const specTool = (name: string) => ({
  name,
  description: name,
  input: z.strictObject({}),
  output: z.strictObject({}),
  idempotent: true,
  retryable: false,
  sideEffectful: false,
  timeoutMs: 1000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  execute: async () => ({}),
});

/** One half of a fresh Ed25519 pair as PEM, for configuration that wants a key of the right shape. */
export const ed25519Pem = (k: 'public' | 'private'): string => {
  const pair = generateKeyPairSync('ed25519');
  return k === 'public' ? pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() : pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
};

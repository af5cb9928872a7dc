/**
 * A tool body runs only for a capability this process has just consumed. The proof is an
 * object this module hands out after the consuming UPDATE won, remembers by identity, and takes
 * back on use: a copy, a forgery or a second use is refused, so no other code path in the
 * dispatcher can reach a tool body.
 */
export interface ConsumptionProof {
  readonly capabilityId: string;
}

export class ForbiddenRouteError extends Error {
  constructor(detail: string) {
    super(`forbidden route: ${detail}`);
    this.name = 'ForbiddenRouteError';
  }
}

const issued = new WeakSet<ConsumptionProof>();

/** Called by DispatchIntentsService for the capabilities its conditional UPDATE consumed. */
export function issueConsumptionProof(capabilityId: string): ConsumptionProof {
  const proof = Object.freeze({ capabilityId });
  issued.add(proof);
  return proof;
}

export function redeemConsumptionProof(proof: ConsumptionProof, capabilityId: string): void {
  if (!issued.has(proof)) throw new ForbiddenRouteError('no consumed capability backs this call');
  if (proof.capabilityId !== capabilityId) throw new ForbiddenRouteError('the proof is for another capability');
  issued.delete(proof);
}

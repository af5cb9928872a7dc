import { faultFor, type Faults } from '@arvis/config';

/**
 * The authorizer's intake fault point, for fault specs. Injected: the production profile gets
 * NO_AUTHORIZER_FAULTS (configuration refuses faults there), so the intake never consults a
 * fault list. The intent sink's faults are not here: TamperingIntentSink (tampering-intent-sink.ts)
 * decorates the sink, and only the test profile binds it.
 */
export abstract class AuthorizerFaultPoints {
  /** Handling this decision fails, every time (isolation is what gets tested). */
  abstract beforeHandling(decisionId: string): void;
}

class NoFaults extends AuthorizerFaultPoints {
  beforeHandling(): void {}
}

export const NO_AUTHORIZER_FAULTS: AuthorizerFaultPoints = new NoFaults();

/** The test profile's fault points, read from ARVIS_FAULTS once at start-up. */
export class ConfiguredAuthorizerFaults extends AuthorizerFaultPoints {
  constructor(private readonly faults: Faults) {
    super();
  }

  beforeHandling(decisionId: string): void {
    if (faultFor(this.faults.decisionHandlingFails, decisionId)) throw new Error(`fault point decisionHandlingFails: ${decisionId}`);
  }
}

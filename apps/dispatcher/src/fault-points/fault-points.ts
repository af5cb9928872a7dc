import type { Faults } from '@arvis/config';
import { faultFor } from '@arvis/config';

/**
 * Named crash windows and sink failures of the dispatcher, for fault specs. Injected: the
 * production profile gets NO_FAULTS (configuration refuses faults there), so no production code
 * path consults a fault list.
 */
export abstract class FaultPoints {
  /** After the intents arrived, before anything is consumed or committed. */
  abstract beforeConsume(decisionIds: readonly string[]): void;
  /** Inside the tool: the body acted, no result is recorded. */
  abstract afterToolBody(decisionId: string): void;
  /** Journaling results fails, every attempt. */
  abstract failRecording(decisionIds: readonly string[]): void;
}

class NoFaults extends FaultPoints {
  beforeConsume(): void {}
  afterToolBody(): void {}
  failRecording(): void {}
}

export const NO_FAULTS: FaultPoints = new NoFaults();

/** The test profile's fault points, read from ARVIS_FAULTS once at start-up. */
export class ConfiguredFaults extends FaultPoints {
  constructor(private readonly faults: Faults) {
    super();
  }

  beforeConsume(decisionIds: readonly string[]): void {
    if (decisionIds.some((d) => faultFor(this.faults.dispatcherCrashBeforeConsume, d))) process.kill(process.pid, 'SIGKILL');
  }

  afterToolBody(decisionId: string): void {
    if (faultFor(this.faults.dispatcherCrashInsideTool, decisionId)) process.kill(process.pid, 'SIGKILL');
  }

  failRecording(decisionIds: readonly string[]): void {
    if (decisionIds.some((d) => faultFor(this.faults.journalResultFails, d))) throw new Error('fault point: journaling the result fails');
  }
}

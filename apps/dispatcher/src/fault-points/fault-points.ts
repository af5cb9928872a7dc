import type { Faults } from '@arvis/config';
import { faultFor } from '@arvis/config';

/**
 * Named crash windows of the dispatcher, for fault specs. Injected: the production profile gets
 * NO_FAULTS (configuration refuses faults there), so no production code path consults a fault
 * list. Journaling results that fails is not here: FailingResultRecorder
 * (failing-result-recorder.ts) decorates the recorder, and only the test profile binds it.
 */
export abstract class FaultPoints {
  /** After the intents arrived, before anything is consumed or committed. */
  abstract beforeConsume(decisionIds: readonly string[]): void;
  /** Inside the tool: the body acted, no result is recorded. */
  abstract afterToolBody(decisionId: string): void;
  /** effect_started has committed, the body's start marker is not written yet. */
  abstract beforeBodyStartMarker(decisionId: string): void;
  /** The body's start marker has committed, the body has not run a statement yet. */
  abstract afterBodyStartMarker(decisionId: string): void;
}

class NoFaults extends FaultPoints {
  beforeConsume(): void {}
  afterToolBody(): void {}
  beforeBodyStartMarker(): void {}
  afterBodyStartMarker(): void {}
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

  beforeBodyStartMarker(decisionId: string): void {
    this.signalAt('before_marker', decisionId);
  }

  afterBodyStartMarker(decisionId: string): void {
    this.signalAt('after_marker', decisionId);
  }

  // SIGSTOP stops the whole process here, synchronously; it goes on from this line on SIGCONT.
  private signalAt(at: 'before_marker' | 'after_marker', decisionId: string): void {
    const f = faultFor(this.faults.dispatcherSignalAtBodyStart?.filter((x) => x.at === at), decisionId);
    if (f) process.kill(process.pid, f.signal);
  }
}

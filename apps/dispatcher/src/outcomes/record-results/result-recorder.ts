import type { Tx } from '@arvis/persistence';
import type { ClaimedIntent } from '../../intake/dispatch-intents/claimed-intent';
import type { Classified } from '../classify-result/classify-result';

export interface RanIntent {
  claimed: ClaimedIntent;
  result: Classified;
}

/** Where execution hands the results of the bodies it ran (ADR 0016); RecordResultsService records them. */
export abstract class ResultRecorder {
  /**
   * `alsoInTransaction`: a statement to commit with the results (the next group's start), run
   * before the journal's head is locked. Its answer is returned when it committed; undefined when
   * it did not run (nothing to record, or the group had to be split), and the caller runs it alone.
   */
  abstract record<T>(ran: readonly RanIntent[], alsoInTransaction?: (tx: Tx) => Promise<T>): Promise<T | undefined>;

  /** Results of bodies that settled after their effect was closed unknown (ADR 0056). */
  abstract recordLate(ran: readonly RanIntent[]): Promise<void>;
}

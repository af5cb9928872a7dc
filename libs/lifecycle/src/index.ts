// Public surface of @arvis/lifecycle: the one owner of each state machine's table.
export { CapabilityStore, type Activation, type CapabilityForActivation, type JournaledUse, type MintedCapability } from './capability-store';
export { EffectStore, type ClaimedEffect, type ClosedWaiter, type DuplicateClaim, type EffectToStart, type FinishedEffect, type LostEffect, type ResolvedEffect, type UnknownEffectState, type UnknownResolution } from './effect-store';
export {
  ConfirmationNotReservable,
  ConfirmationStore,
  RELEASING_STATES,
  type Approver,
  type DecidedConfirmation,
  type ClosedConfirmation,
  type ParkRequest,
  type ReserveRequest,
} from './confirmation-store';
export { InboxStore, type InboxStatus, type IsolatedDecision, type ReceivedDecision, type ResumedDecision } from './inbox-store';
export { IntentStore, type RedeliveredIntent } from './intent-store';
export { RetryStore, type RetryKey, type RetryLimits, type RetryRequest } from './retry-store';
export { NO_PRUNED_ROWS, RetentionPruner, type DedupeFence, type PruneCounts, type RetentionSettings } from './retention-pruner';
export { expectMoved, type Sql } from './sql';
export { LifecycleModule } from './lifecycle.module';

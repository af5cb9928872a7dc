export { appendJournal, chainJournal, JournalDraftError } from './append-journal';
export { journalMetrics } from './journal-metrics';
export {
  auditIncompleteEntry,
  capabilityRefusalEntry,
  confirmationDecidedEntry,
  confirmationPendingEntry,
  decisionRefusalEntry,
  effectResolvedEntry,
  lateToolResultEntry,
  operatorActionEntry,
  OPERATOR_RUN_ID,
  OPERATOR_TOOL,
  toolResultEntry,
  type CapabilityFacts,
  type DecisionFacts,
  type JournalDraft,
  type RefusedDecisionFacts,
  type ResultFields,
} from './entries';
export { checkpointDue, CHECKPOINT_LOCK_KEY, JournalCheckpointer, type CheckpointPolicy } from './checkpoint-journal';
export {
  lostEntriesOf,
  readDatabaseHead,
  restoreLostEntries,
  rollbackVerdict,
  topicHeadsOf,
  type DatabaseHead,
  type LostEntries,
  type LostEntry,
  type RollbackVerdict,
  type TopicHead,
} from './journal-rollback';

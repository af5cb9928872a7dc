export { appendJournal, JournalDraftError } from './append-journal';
export { applyJournalShards, chainOfShard, MAX_JOURNAL_SHARDS, shardKeyOf, shardOf, type JournalShardsApplied } from './journal-shards';
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
export { checkpointDue, checkpointDueInMs, CHECKPOINT_LOCK_KEY, JournalCheckpointer, type CheckpointPolicy } from './checkpoint-journal';
export {
  lostEntriesOf,
  readDatabaseHead,
  readDatabaseHeads,
  restoreLostEntries,
  rollbackVerdict,
  rollbackVerdictOfChains,
  topicHeadsOf,
  type DatabaseHead,
  type LostEntries,
  type LostEntry,
  type RollbackVerdict,
  type TopicHead,
} from './journal-rollback';

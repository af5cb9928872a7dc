export { mintIdentityToken, type IdentityClaims } from './identity-token';
export {
  DecisionClient,
  decisionProblems,
  InvalidDecisionError,
  journalEntryKey,
  JournalWatcher,
  type DecisionInput,
  type DecisionSender,
  type KafkaConnection,
  type KafkaSecurityOptions,
} from './decision-client';
export { awaitResult, fetchResult, isSendersFinal, ResultApiError, ResultWatcher, type ResultAnswer, type ResultWatcherOptions } from './result-watcher';
export { prefixedTopics } from './topics';
export { fixLoadedKafkajsRequestTimeouts, type RequestTimeoutFixOutcome } from '@arvis/kafkajs-fixes';
// The contract a producer needs, re-exported so the published package carries it (bundled in its build).
export { ActionDecisionSchema, DEFAULT_TOPICS, SPEC_VERSION, type DlqRecord, type JournalEntry, type Topics } from '@arvis/contracts';

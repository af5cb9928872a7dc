export { mintIdentityToken, type IdentityClaims } from './identity-token';
export { DecisionClient, journalEntryKey, JournalWatcher, type DecisionInput, type DecisionSender, type KafkaConnection, type KafkaSecurityOptions } from './decision-client';
export { prefixedTopics } from './topics';
// The contract a producer needs, re-exported so the published package carries it (bundled in its build).
export { ActionDecisionSchema, DEFAULT_TOPICS, SPEC_VERSION, type DlqRecord, type JournalEntry, type Topics } from '@arvis/contracts';

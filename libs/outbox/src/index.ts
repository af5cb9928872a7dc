export { enqueueOutbox, outboxInsert, outboxInsertFrom, outboxPart, reserveOutboxSeqs, type OutboxRow } from './enqueue-outbox';
export { OutboxRelay, type RelayStats } from './outbox.relay';
export { NO_RELAY_HOOKS, type RelayHooks } from './relay-hooks';
export { deadLetterRow } from './dead-letter';
export { discardQuarantined, releaseQuarantined, type QuarantinedOutboxRow } from './quarantine';
export { resultCopiesTotal, ResultRouter, type ResultCopyOutcome } from './result-copies';
export { applyRelayShards, MAX_RELAY_SHARDS, type RelayShardsApplied } from './relay-shard-count';

// The only public surface of @arvis/contracts.
export * from './reason-codes';
export * from './effect-boundary';
export * from './primitives';
export * from './topics';
export * from './retry-info';
export * from './action-decision';
export * from './intent-message';
export * from './journal-entry';
export * from './journal-checkpoint';
export * from './dlq-record';
export * from './parse-inbound';
export * from './clip-text';

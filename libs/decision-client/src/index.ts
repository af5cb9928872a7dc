export { mintIdentityToken, type IdentityClaims } from './identity-token';
export { DecisionClient, JournalWatcher, type DecisionInput } from './decision-client';

export { appendJournal, JournalDraftError } from './append-journal';
export {
  auditIncompleteEntry,
  capabilityRefusalEntry,
  confirmationPendingEntry,
  decisionRefusalEntry,
  toolResultEntry,
  type CapabilityFacts,
  type DecisionFacts,
  type JournalDraft,
  type RefusedDecisionFacts,
  type ResultFields,
} from './entries';

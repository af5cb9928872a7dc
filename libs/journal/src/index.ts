export { appendJournal, JournalDraftError } from './append-journal';
export {
  auditIncompleteEntry,
  capabilityRefusalEntry,
  toolResultEntry,
  type CapabilityFacts,
  type DecisionFacts,
  type JournalDraft,
  type ResultFields,
} from './entries';

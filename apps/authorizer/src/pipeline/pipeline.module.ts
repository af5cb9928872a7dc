import { Module } from '@nestjs/common';
import { hasFaults } from '@arvis/config';
import { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import { StoreFingerprint } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';
import { TamperingIntentSink } from '../fault-points/tampering-intent-sink';
import { PolicyModule } from '../policy/policy.module';
import { AdmitDecisionService } from './admit-decision/admit-decision.service';
import { CommitIntentService } from './commit-intent/commit-intent.service';
import { IntentSink } from './commit-intent/intent-sink';
import { CreatePoolTopicsService } from './create-pool-topics/create-pool-topics.service';
import { DecisionPipeline } from './decision-pipeline/decision-pipeline.service';
import { JournalOutcomesStep } from './journal-outcomes/journal-outcomes.step';
import { ParkDecisionStep } from './park-decision/park-decision.step';
import { RecordInboxStep } from './record-inbox/record-inbox.step';

/**
 * The pipeline: one transaction per slice, its one read, then every step in order (inbox,
 * policy, admission, the intent sink, parking, the journal and outbox rows); at start, the
 * intents topics the sink routes to. Imports policy. Exports the pipeline (intake, resumed
 * confirmations and retries hand it decisions) and the inbox step (intake dead-letters through
 * it a body that conflicts with an earlier one of its slice).
 */
@Module({
  imports: [PolicyModule],
  providers: [
    AdmitDecisionService,
    {
      provide: IntentSink,
      // The test profile's sink is decorated with the sink's fault points; production's is the plain one.
      useFactory: (config: AuthorizerConfig, store: StoreFingerprint, catalog: ToolCatalog, confirmations: ConfirmationStore, capabilities: CapabilityStore) =>
        new (hasFaults(config.faults) ? TamperingIntentSink : CommitIntentService)(config, store, catalog, confirmations, capabilities),
      inject: [AUTHORIZER_CONFIG, StoreFingerprint, ToolCatalog, ConfirmationStore, CapabilityStore],
    },
    CreatePoolTopicsService,
    RecordInboxStep,
    ParkDecisionStep,
    JournalOutcomesStep,
    DecisionPipeline,
  ],
  exports: [DecisionPipeline, RecordInboxStep],
})
export class PipelineModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'the slice transaction, its steps in order: inbox, policy, admission, intent sink, parking, journal entries and outbox rows',
    folders: {
      'decision-pipeline': 'the slice transaction: its one read statement, then every step in order',
      'record-inbox': 'the decision inbox: new, redelivered (no-op) or conflicting (dead letter); one row per decision (InboxStore)',
      'admit-decision': 'admission inside the transaction: identity again, effect context compared',
      'commit-intent': "the intent sink: receipt, capability, signed message, outbox row to its tool's pool's topic",
      'park-decision': 'one pending confirmation per parked decision, bound to tool, payload, principal, tenant',
      'journal-outcomes': "the slice's journal entries (refusals, parked) and its outbox rows, in one statement",
      'create-pool-topics': 'at start, the intents topic of each tool pool of the catalog, if missing (ADR 0080)',
    },
  };
}

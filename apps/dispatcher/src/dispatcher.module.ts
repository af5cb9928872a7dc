import { Module, type DynamicModule } from '@nestjs/common';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import { demoCatalog, ToolCatalog } from '@arvis/tool-catalog';
import { DISPATCHER_CONFIG, type DispatcherConfig } from './config/dispatcher.config';
import { hasFaults } from '@arvis/config';
import { LifecycleModule } from '@arvis/lifecycle';
import { ClaimCapabilitiesService } from './claim-capabilities/claim-capabilities.service';
import { DeduplicateEffectsService } from './deduplicate-effects/deduplicate-effects.service';
import { ReconcileEffectsService } from './reconcile-effects/reconcile-effects.service';
import { IntentsLag } from './redeliver-intents/intents-lag';
import { RedeliverIntentsService } from './redeliver-intents/redeliver-intents.service';
import { DispatchIntentsService } from './dispatch-intents/dispatch-intents.service';
import { ConfiguredFaults, FaultPoints, NO_FAULTS } from './fault-points/fault-points';
import { RecordResultsService } from './record-results/record-results.service';
import { RequestRetriesService } from './request-retries/request-retries.service';
import { RunClaimedService } from './run-claimed/run-claimed.service';
import { IntentsConsumer } from './dispatch-intents/intents.consumer';
import { RecoverEffectsService } from './recover-effects/recover-effects.service';
import { RunToolService } from './run-tool/run-tool.service';
import { FlakyRecordTool } from './tools/flaky-record.tool';
import { LedgerTransferTool } from './tools/ledger-transfer.tool';
import { MailSendTool } from './tools/mail-send.tool';
import { NotesAppendTool } from './tools/notes-append.tool';
import { TOOL_BODIES, type ToolBody } from './tools/tool-body';
import { ToolDatabase } from './tools/tool-database';

@Module({})
export class DispatcherModule {
  static forRoot(config: DispatcherConfig): DynamicModule {
    return {
      module: DispatcherModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config), LifecycleModule],
      controllers: [IntentsConsumer],
      providers: [
        { provide: DISPATCHER_CONFIG, useValue: config },
        { provide: ToolCatalog, useFactory: demoCatalog },
        {
          provide: ToolDatabase,
          useFactory: () => new ToolDatabase({ connectionString: config.database.url, max: config.toolPoolSize }),
        },
        NotesAppendTool,
        FlakyRecordTool,
        MailSendTool,
        LedgerTransferTool,
        {
          provide: TOOL_BODIES,
          useFactory: (...bodies: ToolBody[]) => bodies,
          inject: [NotesAppendTool, FlakyRecordTool, MailSendTool, LedgerTransferTool],
        },
        { provide: FaultPoints, useValue: hasFaults(config.faults) ? new ConfiguredFaults(config.faults) : NO_FAULTS },
        RunToolService,
        RequestRetriesService,
        DeduplicateEffectsService,
        IntentsLag,
        ReconcileEffectsService,
        RedeliverIntentsService,
        RecordResultsService,
        RunClaimedService,
        ClaimCapabilitiesService,
        DispatchIntentsService,
        RecoverEffectsService,
      ],
    };
  }
}

import { Module, type DynamicModule } from '@nestjs/common';
import { PrismaService, StoreFingerprint } from '@arvis/persistence';
import { HealthController, MetricsRegistry, SERVICE_SETTINGS, ServiceRuntime } from '@arvis/runtime';
import { demoCatalog, ToolCatalog } from '@arvis/tool-catalog';
import { DISPATCHER_CONFIG, type DispatcherConfig } from './config/dispatcher.config';
import { DispatchIntentsService } from './dispatch-intents/dispatch-intents.service';
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
      controllers: [IntentsConsumer, HealthController],
      providers: [
        { provide: DISPATCHER_CONFIG, useValue: config },
        { provide: SERVICE_SETTINGS, useValue: config },
        { provide: PrismaService, useFactory: () => new PrismaService(config.database) },
        StoreFingerprint,
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
        ServiceRuntime,
        MetricsRegistry,
        RunToolService,
        DispatchIntentsService,
        RecoverEffectsService,
      ],
    };
  }
}

import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import { assembleTools, describeTools, ToolCatalog, type ToolPackage, type ToolSet } from '@arvis/tool-catalog';
import { DISPATCHER_CONFIG, type DispatcherConfig } from './config/dispatcher.config';
import { DispatcherPools } from './config/dispatcher-pools';
import { hasFaults } from '@arvis/config';
import { LifecycleModule } from '@arvis/lifecycle';
import { ClaimCapabilitiesService } from './claim/claim-capabilities/claim-capabilities.service';
import { CloseEffectsService } from './outcomes/close-effects/close-effects.service';
import { DeduplicateEffectsService } from './claim/deduplicate-effects/deduplicate-effects.service';
import { ReconcileEffectsService } from './recovery/reconcile-effects/reconcile-effects.service';
import { IntentsLag } from './recovery/redeliver-intents/intents-lag';
import { RedeliverIntentsService } from './recovery/redeliver-intents/redeliver-intents.service';
import { DispatchIntentsService } from './intake/dispatch-intents/dispatch-intents.service';
import { ConfiguredFaults, FaultPoints, NO_FAULTS } from './fault-points/fault-points';
import { RecordResultsService } from './outcomes/record-results/record-results.service';
import { RequestRetriesService } from './outcomes/request-retries/request-retries.service';
import { RunClaimedService } from './execution/run-claimed/run-claimed.service';
import { IntentsConsumer } from './intake/dispatch-intents/intents.consumer';
import { RecoverEffectsService } from './recovery/recover-effects/recover-effects.service';
import { RunToolService } from './execution/run-tool/run-tool.service';
import { EFFECT_DEADLINES, StoredEffectDeadlines } from './execution/run-tool/effect-deadlines';
import { ReportOperationsService } from './report-operations/report-operations.service';
import { TOOL_BODIES, toolBodies } from './execution/tools/tool-body';
import { ToolDatabases } from './execution/tools/tool-database';

@Module({})
export class DispatcherModule {
  /**
   * `tools`: the packages whose tools this dispatcher runs (those named by ARVIS_TOOL_PACKAGES,
   * and any a team's own entry point adds). Duplicates or none at all stop start-up (exit 78).
   */
  static forRoot(config: DispatcherConfig, opts: { tools: readonly ToolPackage[] }): DynamicModule {
    const tools = assembleTools(opts.tools);
    // Checked here, with the packages known: a package of another pool, or a pool without one, stops start-up.
    const pools = new DispatcherPools(config, tools);
    return {
      module: DispatcherModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config), LifecycleModule],
      controllers: [IntentsConsumer],
      providers: [
        { provide: DISPATCHER_CONFIG, useValue: config },
        // Logged once the service's logger is in place: the fingerprint intents are checked against.
        { provide: ToolCatalog, useFactory: () => announced(tools, pools) },
        { provide: DispatcherPools, useValue: pools },
        // Checked here, with the packages known: a URL for a package not loaded stops start-up.
        { provide: ToolDatabases, useValue: new ToolDatabases(tools.packages.map((p) => p.name), config.toolDatabase) },
        {
          provide: TOOL_BODIES,
          useFactory: (dbs: ToolDatabases, faults: FaultPoints) => toolBodies(tools, (name) => dbs.forPackage(name), (d) => faults.afterBodyStartMarker(d)),
          inject: [ToolDatabases, FaultPoints],
        },
        { provide: FaultPoints, useValue: hasFaults(config.faults) ? new ConfiguredFaults(config.faults) : NO_FAULTS },
        RunToolService,
        { provide: EFFECT_DEADLINES, useClass: StoredEffectDeadlines },
        RequestRetriesService,
        CloseEffectsService,
        DeduplicateEffectsService,
        IntentsLag,
        ReconcileEffectsService,
        RedeliverIntentsService,
        RecordResultsService,
        RunClaimedService,
        ClaimCapabilitiesService,
        DispatchIntentsService,
        RecoverEffectsService,
        ReportOperationsService,
      ],
    };
  }
}

function announced(tools: ToolSet, pools: DispatcherPools): ToolCatalog {
  new Logger('Tools').log(describeTools(tools));
  new Logger('Tools').log(`serving pools ${pools.describe()}`);
  return tools.catalog;
}

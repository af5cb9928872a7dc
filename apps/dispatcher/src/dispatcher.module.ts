import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import { assembleTools, describeTools, ToolCatalog, type ToolPackage, type ToolSet } from '@arvis/tool-catalog';
import { DISPATCHER_CONFIG, type DispatcherConfig } from './config/dispatcher.config';
import { DispatcherPools } from './config/dispatcher-pools';
import { hasFaults } from '@arvis/config';
import { LifecycleModule } from '@arvis/lifecycle';
import { ConfiguredFaults, FaultPoints, NO_FAULTS } from './fault-points/fault-points';
import { ReportOperationsService } from './report-operations/report-operations.service';
import { TOOL_BODIES, toolBodies } from './execution/tools/tool-body';
import { ToolDatabases } from './execution/tools/tool-database';
import { IntakeModule } from './intake/intake.module';
import { ClaimModule } from './claim/claim.module';
import { ExecutionModule } from './execution/execution.module';
import { OutcomesModule } from './outcomes/outcomes.module';
import { RecoveryModule } from './recovery/recovery.module';

/**
 * The stages of an intent's path, in order. A stage's module imports only modules of the stages
 * after it, the ones it hands the intent to (feature-modules-follow-the-path.spec); recovery is a
 * side path that ends in outcomes.
 */
export const FEATURE_MODULES = [IntakeModule, ClaimModule, ExecutionModule, OutcomesModule, RecoveryModule] as const;

/**
 * The values DispatcherModule.forRoot computes from configuration and options (the configuration,
 * the catalog, the pools, the tool bodies and their databases, the fault points), one instance
 * each. Global, so every feature module injects them without importing anything; imported last,
 * so it stops first of the global modules (ToolDatabases before the database), as when these were
 * DispatcherModule's own providers.
 */
@Module({})
export class DispatcherValuesModule {}

@Module({})
export class DispatcherModule {
  /**
   * The top-level folders' lines on the folder map of docs/architecture.md, which `npm run
   * folder-map` writes; each stage's are on its module.
   */
  static readonly folderMap = {
    folders: {
      'report-operations': 'what an operator acts on, read at scrape time (open effects, unknown ones, audit-incomplete runs; ADR 0060)',
      'fault-points': 'named crash windows for fault specs (injected; production gets a no-op); FailingResultRecorder, bound only in the test profile',
      config: "the dispatcher's validated configuration; the pools it serves (DISPATCHER_POOLS: topic, group, catalog per pool, ADR 0081)",
    },
  };

  /**
   * `tools`: the packages whose tools this dispatcher runs (those named by ARVIS_TOOL_PACKAGES,
   * and any a team's own entry point adds). Duplicates or none at all stop start-up (exit 78).
   */
  static forRoot(config: DispatcherConfig, opts: { tools: readonly ToolPackage[] }): DynamicModule {
    const tools = assembleTools(opts.tools);
    // Checked here, with the packages known: a package of another pool, or a pool without one, stops start-up.
    const pools = new DispatcherPools(config, tools);
    const values: DynamicModule = {
      module: DispatcherValuesModule,
      global: true,
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
      ],
      // ToolDatabases stays inside: only the tool bodies use it.
      exports: [DISPATCHER_CONFIG, ToolCatalog, DispatcherPools, TOOL_BODIES, FaultPoints],
    };
    return {
      module: DispatcherModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config), LifecycleModule, values, ...FEATURE_MODULES],
      // Reads across every stage at scrape time: no stage of its own.
      providers: [ReportOperationsService],
    };
  }
}

function announced(tools: ToolSet, pools: DispatcherPools): ToolCatalog {
  new Logger('Tools').log(describeTools(tools));
  new Logger('Tools').log(`serving pools ${pools.describe()}`);
  return tools.catalog;
}

import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { hasFaults } from '@arvis/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { PersistenceModule } from '@arvis/persistence';
import { byAddress, byCredentialOrAddress, RuntimeModule } from '@arvis/runtime';
import { LifecycleModule } from '@arvis/lifecycle';
import { assembleTools, describeTools, ToolCatalog, type ToolPackage, type ToolSet } from '@arvis/tool-catalog';
import { AuthorizerFaultPoints, ConfiguredAuthorizerFaults, NO_AUTHORIZER_FAULTS } from './fault-points/fault-points';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from './config/authorizer.config';
import { ConfirmationsController } from './confirmations/approve-confirmation/confirmations.controller';
import { ConsoleController } from './confirmations/approver-console/console.controller';
import { OidcSignInController } from './confirmations/sign-in-with-oidc/oidc-sign-in.controller';
import { DecisionsController } from './intake/read-decision/decisions.controller';
import { ADMIN_CONTROLLERS, AdminModule } from './admin/admin.module';
import { ConfirmationsModule } from './confirmations/confirmations.module';
import { IntakeModule } from './intake/intake.module';
import { PipelineModule } from './pipeline/pipeline.module';
import { PolicyModule } from './policy/policy.module';
import { RetentionModule } from './retention/retention.module';
import { RetriesModule } from './retries/retries.module';

/** The controllers of the API port; its allow-list of paths is their route prefixes (ADR 0038). */
export const AUTHORIZER_HTTP_CONTROLLERS = [ConfirmationsController, DecisionsController, ConsoleController, OidcSignInController, ...ADMIN_CONTROLLERS];

/**
 * The stages of a decision's path. Intake hands a slice to the pipeline, which calls policy;
 * retries and confirmations are side entrances to the pipeline (a retry, a resumed decision);
 * admin and retention stand beside the path. A stage's module imports only modules of the stages
 * after it (feature-modules-follow-the-path.spec). Nest starts the workers in this order, retries'
 * first, as when they were this module's own providers.
 */
export const FEATURE_MODULES = [IntakeModule, PipelineModule, PolicyModule, RetriesModule, ConfirmationsModule, AdminModule, RetentionModule] as const;

/**
 * The values AuthorizerModule.forRoot computes from configuration and options (the
 * configuration, the fault points, the catalog), one instance each. Global, so every feature
 * module injects them without importing anything; imported after the library modules, as the
 * dispatcher's are.
 */
@Module({})
export class AuthorizerValuesModule {}

@Module({})
export class AuthorizerModule {
  /**
   * The top-level folders' lines on the folder map of docs/architecture.md, which `npm run
   * folder-map` writes; each stage's are on its module.
   */
  static readonly folderMap = {
    folders: {
      'fault-points': "named failures for fault specs (injected; production gets a no-op); TamperingIntentSink, the intent sink's faults, bound only in the test profile",
      config: "the authorizer's validated configuration",
    },
  };

  /**
   * `tools`: the packages whose tools this authorizer judges and mints intents for (those named
   * by ARVIS_TOOL_PACKAGES, and any a team's own entry point adds); the dispatchers must load the
   * same ones. Duplicates or none at all stop start-up (exit 78).
   */
  static forRoot(config: AuthorizerConfig, opts: { tools: readonly ToolPackage[] }): DynamicModule {
    const tools = assembleTools(opts.tools);
    const values: DynamicModule = {
      module: AuthorizerValuesModule,
      global: true,
      providers: [
        { provide: AUTHORIZER_CONFIG, useValue: config },
        { provide: AuthorizerFaultPoints, useValue: hasFaults(config.faults) ? new ConfiguredAuthorizerFaults(config.faults) : NO_AUTHORIZER_FAULTS },
        { provide: ToolCatalog, useFactory: () => catalogOf(tools, config.faults.authorizerCatalogSkew === true) },
      ],
      exports: [AUTHORIZER_CONFIG, AuthorizerFaultPoints, ToolCatalog],
    };
    return {
      module: AuthorizerModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config), LifecycleModule, rateLimits(config), values, ...FEATURE_MODULES],
    };
  }
}

/**
 * For the HTTP API's controllers (they name RateLimitGuard), ADR 0038: `api` per credential (a
 * bearer token or the console's cookie; per client address without one), `address` per client
 * address whatever it carries (a flood of invented tokens), `signIn` per address for console
 * sign-ins only. The client address is the one TRUST_PROXY lets the proxies name.
 */
function rateLimits(config: AuthorizerConfig) {
  const { windowMs, api, signIn, perAddress } = config.rateLimit;
  return ThrottlerModule.forRoot({
    throttlers: [
      { name: 'api', ttl: windowMs, limit: api, getTracker: byCredentialOrAddress },
      { name: 'address', ttl: windowMs, limit: perAddress, getTracker: byAddress },
      { name: 'signIn', ttl: windowMs, limit: signIn, getTracker: byAddress },
    ],
  });
}

/**
 * The catalog intents are minted against, logged once the service's logger is in place. The
 * fault point authorizerCatalogSkew adds one tool the dispatchers do not know (another
 * fingerprint), as during a rolling deploy that reached the authorizer first.
 */
function catalogOf(tools: ToolSet, skew: boolean): ToolCatalog {
  let catalog = tools.catalog;
  if (skew) {
    const first = catalog.specs()[0];
    // In the first tool's pool: that pool's fingerprint is the one that differs (ADR 0080).
    const pools = new Map(catalog.names().map((n) => [n, catalog.poolOf(n)!] as const)).set(`${first.name}.unreleased`, catalog.poolOf(first.name)!);
    catalog = new ToolCatalog([...catalog.specs(), { ...first, name: `${first.name}.unreleased`, description: 'Not yet deployed to the dispatchers' }], pools);
  }
  new Logger('Tools').log(describeTools({ ...tools, catalog }));
  return catalog;
}

import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { hasFaults } from '@arvis/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { PersistenceModule } from '@arvis/persistence';
import { byAddress, byCredentialOrAddress, RuntimeModule } from '@arvis/runtime';
import { LifecycleModule } from '@arvis/lifecycle';
import { assembleTools, describeTools, ToolCatalog, type ToolPackage, type ToolSet } from '@arvis/tool-catalog';
import { AdmitDecisionService } from './pipeline/admit-decision/admit-decision.service';
import { ApproveConfirmationService } from './confirmations/approve-confirmation/approve-confirmation.service';
import { ListConfirmationsService } from './confirmations/list-confirmations/list-confirmations.service';
import { ListVerdictsService } from './confirmations/list-verdicts/list-verdicts.service';
import { ApproverWebhookRelay } from './confirmations/notify-approvers/approver-webhook.relay';
import { ApproverGuard } from './confirmations/approve-confirmation/approver.guard';
import { BearerTokenService } from './policy/authenticate-bearer/bearer-token.service';
import { ConfirmationsController } from './confirmations/approve-confirmation/confirmations.controller';
import { ConsoleController } from './confirmations/approver-console/console.controller';
import { ConsoleEventsService } from './confirmations/approver-console/console-events.service';
import { ConsoleSessionGuard } from './confirmations/approver-console/console-session.guard';
import { ConsoleSessionsService } from './confirmations/approver-console/console-sessions.service';
import { ResumeConfirmationsService } from './confirmations/resume-confirmations/resume-confirmations.service';
import { AuthorizeDecisionService } from './policy/authorize-decision/authorize-decision.service';
import { CommitIntentService } from './pipeline/commit-intent/commit-intent.service';
import { CreatePoolTopicsService } from './pipeline/create-pool-topics/create-pool-topics.service';
import { AuthorizerFaultPoints, ConfiguredAuthorizerFaults, NO_AUTHORIZER_FAULTS } from './fault-points/fault-points';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from './config/authorizer.config';
import { IsolateDecisionService } from './intake/isolate-decision/isolate-decision.service';
import { DecisionPipeline } from './pipeline/decision-pipeline/decision-pipeline.service';
import { JournalOutcomesStep } from './pipeline/journal-outcomes/journal-outcomes.step';
import { ParkDecisionStep } from './pipeline/park-decision/park-decision.step';
import { RecordInboxStep } from './pipeline/record-inbox/record-inbox.step';
import { DecisionsConsumer } from './intake/receive-decisions/decisions.consumer';
import { ReceiveDecisionsService } from './intake/receive-decisions/receive-decisions.service';
import { PruneRecordsService } from './retention/prune-records/prune-records.service';
import { SubmitRetriesService } from './retries/submit-retries/submit-retries.service';
import { VerifyIdentityService } from './policy/verify-identity/verify-identity.service';
import { ADMIN_CONTROLLERS, ADMIN_PROVIDERS } from './admin/admin-guard/admin-api';
import { DecisionsController } from './intake/read-decision/decisions.controller';
import { ReadDecisionService } from './intake/read-decision/read-decision.service';
import { OidcSignInController } from './confirmations/sign-in-with-oidc/oidc-sign-in.controller';
import { OidcSignInService } from './confirmations/sign-in-with-oidc/oidc-sign-in.service';

/** The controllers of the API port; its allow-list of paths is their route prefixes (ADR 0038). */
export const AUTHORIZER_HTTP_CONTROLLERS = [ConfirmationsController, DecisionsController, ConsoleController, OidcSignInController, ...ADMIN_CONTROLLERS];

@Module({})
export class AuthorizerModule {
  /**
   * `tools`: the packages whose tools this authorizer judges and mints intents for (those named
   * by ARVIS_TOOL_PACKAGES, and any a team's own entry point adds); the dispatchers must load the
   * same ones. Duplicates or none at all stop start-up (exit 78).
   */
  static forRoot(config: AuthorizerConfig, opts: { tools: readonly ToolPackage[] }): DynamicModule {
    const tools = assembleTools(opts.tools);
    return {
      module: AuthorizerModule,
      imports: [PersistenceModule.forRoot(config.database), RuntimeModule.forRoot(config), LifecycleModule, rateLimits(config)],
      controllers: [DecisionsConsumer, ...AUTHORIZER_HTTP_CONTROLLERS],
      providers: [
        { provide: AUTHORIZER_CONFIG, useValue: config },
        { provide: AuthorizerFaultPoints, useValue: hasFaults(config.faults) ? new ConfiguredAuthorizerFaults(config.faults) : NO_AUTHORIZER_FAULTS },
        { provide: ToolCatalog, useFactory: () => catalogOf(tools, config.faults.authorizerCatalogSkew === true) },
        VerifyIdentityService,
        AuthorizeDecisionService,
        AdmitDecisionService,
        CommitIntentService,
        CreatePoolTopicsService,
        ReceiveDecisionsService,
        RecordInboxStep,
        ParkDecisionStep,
        JournalOutcomesStep,
        DecisionPipeline,
        IsolateDecisionService,
        SubmitRetriesService,
        ApproveConfirmationService,
        ListConfirmationsService,
        ListVerdictsService,
        ApproverWebhookRelay,
        ReadDecisionService,
        BearerTokenService,
        ApproverGuard,
        ResumeConfirmationsService,
        PruneRecordsService,
        ...ADMIN_PROVIDERS,
        ConsoleSessionsService,
        ConsoleSessionGuard,
        ConsoleEventsService,
        OidcSignInService,
      ],
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

import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { PolicyModule } from '../policy/policy.module';
import { ApproveConfirmationService } from './approve-confirmation/approve-confirmation.service';
import { ApproverGuard } from './approve-confirmation/approver.guard';
import { ConfirmationsController } from './approve-confirmation/confirmations.controller';
import { ConsoleEventsService } from './approver-console/console-events.service';
import { ConsoleSessionGuard } from './approver-console/console-session.guard';
import { ConsoleSessionsService } from './approver-console/console-sessions.service';
import { ConsoleController } from './approver-console/console.controller';
import { ListConfirmationsService } from './list-confirmations/list-confirmations.service';
import { ListVerdictsService } from './list-verdicts/list-verdicts.service';
import { ApproverWebhookRelay } from './notify-approvers/approver-webhook.relay';
import { ResumeConfirmationsService } from './resume-confirmations/resume-confirmations.service';
import { OidcSignInController } from './sign-in-with-oidc/oidc-sign-in.controller';
import { OidcSignInService } from './sign-in-with-oidc/oidc-sign-in.service';

/**
 * Confirmations, a side entrance to the pipeline: approvers judge parked decisions (the API, the
 * console and its sign-in, the history, the webhooks that tell them), and the worker resumes
 * approved ones through the pipeline and closes denied and expired ones. Imports the pipeline
 * and policy (approvers authenticated, a resumed decision's kept identity read back). Exports
 * nothing.
 */
@Module({
  imports: [PipelineModule, PolicyModule],
  controllers: [ConfirmationsController, ConsoleController, OidcSignInController],
  providers: [
    ApproveConfirmationService,
    ListConfirmationsService,
    ListVerdictsService,
    ApproverWebhookRelay,
    ApproverGuard,
    ResumeConfirmationsService,
    ConsoleSessionsService,
    ConsoleSessionGuard,
    ConsoleEventsService,
    OidcSignInService,
  ],
})
export class ConfirmationsModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'a side entrance to the pipeline: approvers judge parked decisions (API, console, sign-in, history, webhooks); approved ones resumed',
    folders: {
      'approve-confirmation': 'the approver HTTP API and its guard',
      'list-confirmations': 'pending confirmations as an approver sees them: display hints beside exact values (ADR 0069)',
      'list-verdicts': "the approvers' history: filters and keyset pages",
      'approver-console': 'the approver console: page, sessions, CSRF, server-sent events (ADR 0037)',
      'sign-in-with-oidc': "console sign-in through the issuer's OpenID provider: code flow with PKCE, the pre-login cookie (ADR 0071)",
      'notify-approvers': 'signed webhooks when a confirmation is parked or about to expire, one sender per row (ADR 0070)',
      'resume-confirmations': 'worker: resume approved decisions, close denied and expired ones (ConfirmationStore, InboxStore)',
    },
  };
}

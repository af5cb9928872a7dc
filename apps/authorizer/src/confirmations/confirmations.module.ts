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
export class ConfirmationsModule {}

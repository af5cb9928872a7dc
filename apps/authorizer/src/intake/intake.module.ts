import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { PolicyModule } from '../policy/policy.module';
import { IsolateDecisionService } from './isolate-decision/isolate-decision.service';
import { DecisionsController } from './read-decision/decisions.controller';
import { ReadDecisionService } from './read-decision/read-decision.service';
import { DecisionsConsumer } from './receive-decisions/decisions.consumer';
import { ReceiveDecisionsService } from './receive-decisions/receive-decisions.service';

/**
 * Intake, the first stage: the decisions consumer reads a slice (parse, token, canonical body,
 * dead letters) and hands it to the pipeline; a message that fails every time is isolated. The
 * requester's side of the path is here too: `GET /decisions/{id}` reads its own result back.
 * Imports the pipeline and policy (tokens verified, a requester authenticated). Exports nothing:
 * no stage calls back into intake.
 */
@Module({
  imports: [PipelineModule, PolicyModule],
  controllers: [DecisionsConsumer, DecisionsController],
  providers: [ReceiveDecisionsService, IsolateDecisionService, ReadDecisionService],
})
export class IntakeModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: "the first stage: the decisions consumer hands each slice to the pipeline and isolates a message that fails every time; a requester's own result read back",
    folders: {
      'receive-decisions': 'the decisions consumer; a slice read: parse, token, canonical body, dead letters',
      'isolate-decision': 'a message that failed every time, alone: decision_unprocessable (InboxStore.isolate) and a dead letter',
      'read-decision': "GET /decisions/{id}[?waitS=]: a requester's own result, long-polls sharing one poller (ADR 0072)",
    },
  };
}

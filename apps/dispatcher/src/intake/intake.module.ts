import { Module } from '@nestjs/common';
import { ClaimModule } from '../claim/claim.module';
import { ExecutionModule } from '../execution/execution.module';
import { DispatchIntentsService } from './dispatch-intents/dispatch-intents.service';
import { IntentsConsumer } from './dispatch-intents/intents.consumer';

/**
 * Intake, the first stage: the intents consumer and the pipeline of one slice, which parses and
 * verifies the messages (verify-intent/, plain functions) and hands them to claim, then to
 * execution. It exports nothing: no stage calls back into intake.
 */
@Module({
  imports: [ClaimModule, ExecutionModule],
  controllers: [IntentsConsumer],
  providers: [DispatchIntentsService],
})
export class IntakeModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'the first stage: the intents consumer, the pipeline of one slice, the messages verified',
    folders: {
      'dispatch-intents': 'the intents consumer, the pipeline of one slice, claimed-intent types, stored facts',
      'verify-intent': 'message parse and signature; match with the stored intent; stored-intent re-hash',
    },
  };
}

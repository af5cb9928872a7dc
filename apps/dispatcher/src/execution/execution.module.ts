import { Module } from '@nestjs/common';
import { OutcomesModule } from '../outcomes/outcomes.module';
import { RunClaimedService } from './run-claimed/run-claimed.service';
import { EFFECT_DEADLINES, StoredEffectDeadlines } from './run-tool/effect-deadlines';
import { RunToolService } from './run-tool/run-tool.service';

/**
 * Execution: the claimed intents run a group at a time through the one route to a tool body,
 * then handed to outcomes to be recorded. The tool bodies and their databases (tools/) are built
 * from configuration by DispatcherModule.forRoot and reach this module as global values.
 * Exports the runner, which intake's pipeline calls.
 */
@Module({
  imports: [OutcomesModule],
  providers: [RunToolService, { provide: EFFECT_DEADLINES, useClass: StoredEffectDeadlines }, RunClaimedService],
  exports: [RunClaimedService],
})
export class ExecutionModule {}

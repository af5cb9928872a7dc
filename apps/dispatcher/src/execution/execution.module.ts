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
export class ExecutionModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'the stage that runs claimed intents, a group at a time, through the one route to a tool body',
    folders: {
      'run-claimed': 'groups of TOOL_CONCURRENCY bodies: start, run, record; the heartbeat on claims',
      'run-tool': 'the only route to a tool body (consumption proof, timeout, AbortSignal)',
      tools: "binds each package's bodies to its own pool (its database role, ADR 0034) and writes the body-start marker",
    },
  };
}

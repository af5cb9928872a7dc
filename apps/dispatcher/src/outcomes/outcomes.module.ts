import { Module } from '@nestjs/common';
import { hasFaults } from '@arvis/config';
import { EffectStore } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../config/dispatcher.config';
import { FailingResultRecorder } from '../fault-points/failing-result-recorder';
import { CloseEffectsService } from './close-effects/close-effects.service';
import { RecordResultsService } from './record-results/record-results.service';
import { ResultRecorder } from './record-results/result-recorder';
import { RequestRetriesService } from './request-retries/request-retries.service';

/**
 * Outcomes, where every effect ends: results recorded (classify-result/ gives their boundaries),
 * effects closed by their one owner, retries requested. Imports no stage. Exports the recorder
 * (execution hands it a group's results) and the closing (claim's duplicates and recovery's lost
 * effects end there too).
 */
@Module({
  providers: [
    RequestRetriesService,
    CloseEffectsService,
    {
      provide: ResultRecorder,
      // The test profile's recorder fails journaling where its fault points say; production's is the plain one.
      useFactory: (config: DispatcherConfig, db: Database, effects: EffectStore, closings: CloseEffectsService) =>
        new (hasFaults(config.faults) ? FailingResultRecorder : RecordResultsService)(config, db, effects, closings),
      inject: [DISPATCHER_CONFIG, Database, EffectStore, CloseEffectsService],
    },
  ],
  exports: [CloseEffectsService, ResultRecorder],
})
export class OutcomesModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'where every effect ends: results classified and recorded, effects closed, retries requested',
    folders: {
      'classify-result': 'effect boundaries',
      'record-results': 'the results transaction: outage waited out, halving, audit-incomplete',
      'close-effects': 'the one owner of closing an effect: row, confirmation, retry, waiting duplicates, entries',
      'request-retries': "the dispatcher's retry limits (RETRY_MAX_ATTEMPTS, RETRY_MAX_RISK) handed to RetryStore.requestRetry",
    },
  };
}

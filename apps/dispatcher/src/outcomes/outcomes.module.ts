import { Module } from '@nestjs/common';
import { CloseEffectsService } from './close-effects/close-effects.service';
import { RecordResultsService } from './record-results/record-results.service';
import { RequestRetriesService } from './request-retries/request-retries.service';

/**
 * Outcomes, where every effect ends: results recorded (classify-result/ gives their boundaries),
 * effects closed by their one owner, retries requested. Imports no stage. Exports the recorder
 * (execution hands it a group's results) and the closing (claim's duplicates and recovery's lost
 * effects end there too).
 */
@Module({
  providers: [RequestRetriesService, CloseEffectsService, RecordResultsService],
  exports: [CloseEffectsService, RecordResultsService],
})
export class OutcomesModule {}

import { Module } from '@nestjs/common';
import { PruneRecordsService } from './prune-records/prune-records.service';

/**
 * Retention, beside the path: finished decisions' rows pruned past their windows (ADR 0041).
 * Imports no stage and exports nothing: its worker starts itself (onApplicationBootstrap).
 */
@Module({
  providers: [PruneRecordsService],
})
export class RetentionModule {}

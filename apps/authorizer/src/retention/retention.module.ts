import { Module } from '@nestjs/common';
import { PruneRecordsService } from './prune-records/prune-records.service';

/**
 * Retention, beside the path: finished decisions' rows pruned past their windows (ADR 0041).
 * Imports no stage and exports nothing: its worker starts itself (onApplicationBootstrap).
 */
@Module({
  providers: [PruneRecordsService],
})
export class RetentionModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: "beside the path: finished decisions' rows pruned past their windows (ADR 0041)",
    folders: {
      'prune-records': "finished decisions' rows past their windows, in bounded batches (ADR 0041)",
    },
  };
}

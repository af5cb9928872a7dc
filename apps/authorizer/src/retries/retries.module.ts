import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { PolicyModule } from '../policy/policy.module';
import { SubmitRetriesService } from './submit-retries/submit-retries.service';

/**
 * Retries, a side entrance to the pipeline: the worker turns due retry rows into new decisions
 * and hands them to the pipeline. Imports the pipeline and policy (the identity kept for the first
 * decision, read back). Exports nothing: its worker starts itself (onApplicationBootstrap).
 */
@Module({
  imports: [PipelineModule, PolicyModule],
  providers: [SubmitRetriesService],
})
export class RetriesModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'a side entrance to the pipeline: due retry rows submitted as new decisions',
    folders: {
      'submit-retries': 'worker: retry rows → new decisions (RetryStore.lockDue, markSubmitted)',
    },
  };
}

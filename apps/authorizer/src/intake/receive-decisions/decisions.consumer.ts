import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { isolatedPattern, PassErrorsToTransport, type IsolatedMessage, type KafkaBatch } from '@arvis/kafka';
import { DecisionPipeline } from '../../pipeline/decision-pipeline/decision-pipeline.service';
import { IsolateDecisionService } from '../isolate-decision/isolate-decision.service';
import { ReceiveDecisionsService } from './receive-decisions.service';

/**
 * arvis.decisions, in batches: one slice of one partition per call. Errors reach the transport
 * as thrown, so it can wait out a database outage and isolate a decision that always fails.
 */
@Controller()
@UseFilters(new PassErrorsToTransport())
export class DecisionsConsumer {
  constructor(
    private readonly reader: ReceiveDecisionsService,
    private readonly pipeline: DecisionPipeline,
    private readonly isolation: IsolateDecisionService,
  ) {}

  @EventPattern('decisions')
  async onDecisions(@Payload() batch: KafkaBatch): Promise<void> {
    await this.pipeline.run(await this.reader.read(batch));
  }

  @EventPattern(isolatedPattern('decisions'))
  async onIsolatedDecision(@Payload() isolated: IsolatedMessage): Promise<void> {
    await this.isolation.handle(isolated);
  }
}

import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { KafkaBatch } from '@arvis/kafka';
import { ReceiveDecisionsService } from './receive-decisions.service';

/** arvis.decisions, in batches: one slice of one partition per call. */
@Controller()
export class DecisionsConsumer {
  constructor(private readonly service: ReceiveDecisionsService) {}

  @EventPattern('decisions')
  async onDecisions(@Payload() batch: KafkaBatch): Promise<void> {
    await this.service.handle(batch);
  }
}

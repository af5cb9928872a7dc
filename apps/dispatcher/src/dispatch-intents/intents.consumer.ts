import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { KafkaBatch } from '@arvis/kafka';
import { DispatchIntentsService } from './dispatch-intents.service';

/** arvis.intents, in batches: one slice of one partition per call. */
@Controller()
export class IntentsConsumer {
  constructor(private readonly service: DispatchIntentsService) {}

  @EventPattern('intents')
  async onIntents(@Payload() batch: KafkaBatch): Promise<void> {
    await this.service.handle(batch);
  }
}

import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { PassErrorsToTransport, type KafkaBatch } from '@arvis/kafka';
import { DispatchIntentsService } from './dispatch-intents.service';

/**
 * arvis.intents, in batches: one slice of one partition per call. Errors reach the transport as
 * thrown, so it can wait out a database outage and isolate an intent that always fails (to the
 * DLQ only: an intent message never ends a decision; recovery does, from the intents row).
 */
@Controller()
@UseFilters(new PassErrorsToTransport())
export class IntentsConsumer {
  constructor(private readonly service: DispatchIntentsService) {}

  @EventPattern('intents')
  async onIntents(@Payload() batch: KafkaBatch): Promise<void> {
    await this.service.handle(batch);
  }
}

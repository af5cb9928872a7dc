import { Module } from '@nestjs/common';
import { OutcomesModule } from '../outcomes/outcomes.module';
import { ClaimCapabilitiesService } from './claim-capabilities/claim-capabilities.service';
import { DeduplicateEffectsService } from './deduplicate-effects/deduplicate-effects.service';

/**
 * Claim: one transaction per slice that locks, revokes, activates, consumes and claims; a
 * duplicate of an idempotency key takes its holder's outcome or ends not run, closed through
 * outcomes. Exports the claim, which intake's pipeline calls.
 */
@Module({
  imports: [OutcomesModule],
  providers: [DeduplicateEffectsService, ClaimCapabilitiesService],
  exports: [ClaimCapabilitiesService],
})
export class ClaimModule {}

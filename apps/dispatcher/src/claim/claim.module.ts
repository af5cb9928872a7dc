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
export class ClaimModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: "the slice's claim transaction, and duplicates of an idempotency key",
    folders: {
      'claim-capabilities': 'one transaction: lock in id order, revoke, activate, consume, claim',
      'deduplicate-effects': "duplicates of an idempotency key: take the holder's outcome, or end not run",
    },
  };
}

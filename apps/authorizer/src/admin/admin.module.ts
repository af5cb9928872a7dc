import { Module } from '@nestjs/common';
import { PolicyModule } from '../policy/policy.module';
import { AdminGuard } from './admin-guard/admin.guard';
import { AccessController } from './administer-access/access.controller';
import { AdministerAccessService } from './administer-access/administer-access.service';
import { StoreController } from './rebind-store/store.controller';
import { RebindStoreService } from './rebind-store/rebind-store.service';
import { RollbackController } from './reconcile-rollback/rollback.controller';
import { ReconcileRollbackService } from './reconcile-rollback/reconcile-rollback.service';
import { DeadLettersController } from './redrive-dead-letter/dead-letters.controller';
import { RedriveDeadLetterService } from './redrive-dead-letter/redrive-dead-letter.service';
import { QuarantinedController } from './release-quarantined/quarantined.controller';
import { ReleaseQuarantinedService } from './release-quarantined/release-quarantined.service';
import { UnknownEffectsController } from './resolve-unknown-effect/unknown-effects.controller';
import { ResolveUnknownEffectService } from './resolve-unknown-effect/resolve-unknown-effect.service';

/** The admin API's controllers, all under /admin: part of the API port's allow-list. */
export const ADMIN_CONTROLLERS = [AccessController, UnknownEffectsController, DeadLettersController, QuarantinedController, StoreController, RollbackController];

/**
 * Admin, beside the path: the operator's acts under /admin (ADR 0036), each journaled naming the
 * operator; the guard (role admin) and the shared parts in admin-guard/. Imports policy (the
 * operator's Bearer token). Exports nothing.
 */
@Module({
  imports: [PolicyModule],
  controllers: ADMIN_CONTROLLERS,
  providers: [AdminGuard, AdministerAccessService, ResolveUnknownEffectService, RedriveDeadLetterService, ReleaseQuarantinedService, RebindStoreService, ReconcileRollbackService],
})
export class AdminModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: "beside the path: the operator's acts under /admin, each journaled (ADR 0036)",
    folders: {
      'admin-guard': "its guard (role admin) and the operator's journal entries (ADR 0036)",
      'administer-access': 'revoke sessions, grant consents, set egress policies',
      'resolve-unknown-effect': 'an operator settles an effect_state_unknown with what they found',
      'redrive-dead-letter': 'a dead letter sent again to its source topic, or discarded, once',
      'release-quarantined': 'a quarantined outbox row released or discarded',
      'rebind-store': "this store continues another's receipts after a restore",
      'reconcile-rollback': "after a restore from an older dump, the journal topic's entries chained back, capabilities settled (CapabilityStore; ADR 0055)",
    },
  };
}

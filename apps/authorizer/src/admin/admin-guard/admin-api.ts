import { AccessController } from '../administer-access/access.controller';
import { AdministerAccessService } from '../administer-access/administer-access.service';
import { RollbackController } from '../reconcile-rollback/rollback.controller';
import { ReconcileRollbackService } from '../reconcile-rollback/reconcile-rollback.service';
import { StoreController } from '../rebind-store/store.controller';
import { RebindStoreService } from '../rebind-store/rebind-store.service';
import { DeadLettersController } from '../redrive-dead-letter/dead-letters.controller';
import { RedriveDeadLetterService } from '../redrive-dead-letter/redrive-dead-letter.service';
import { QuarantinedController } from '../release-quarantined/quarantined.controller';
import { ReleaseQuarantinedService } from '../release-quarantined/release-quarantined.service';
import { UnknownEffectsController } from '../resolve-unknown-effect/unknown-effects.controller';
import { ResolveUnknownEffectService } from '../resolve-unknown-effect/resolve-unknown-effect.service';
import { AdminGuard } from './admin.guard';

// The admin API under /admin (ADR 0036), registered in the authorizer module as one block.
export const ADMIN_CONTROLLERS = [AccessController, UnknownEffectsController, DeadLettersController, QuarantinedController, StoreController, RollbackController];
export const ADMIN_PROVIDERS = [
  AdminGuard,
  AdministerAccessService,
  ResolveUnknownEffectService,
  RedriveDeadLetterService,
  ReleaseQuarantinedService,
  RebindStoreService,
  ReconcileRollbackService,
];

import { Module } from '@nestjs/common';
import { OutcomesModule } from '../outcomes/outcomes.module';
import { ReconcileEffectsService } from './reconcile-effects/reconcile-effects.service';
import { RecoverEffectsService } from './recover-effects/recover-effects.service';
import { IntentsLag } from './redeliver-intents/intents-lag';
import { RedeliverIntentsService } from './redeliver-intents/redeliver-intents.service';

/**
 * Recovery, the side path for what fell off the main one: the worker that finds lost claims and
 * lost bodies, asks a tool what happened (reconcile-effects/) and closes them through outcomes,
 * and redelivers unconsumed intents to intake through their topic (not through a module).
 * Exports nothing: its worker starts itself (onApplicationBootstrap).
 */
@Module({
  imports: [OutcomesModule],
  providers: [IntentsLag, ReconcileEffectsService, RedeliverIntentsService, RecoverEffectsService],
})
export class RecoveryModule {
  /** Its lines on the folder map of docs/architecture.md, which `npm run folder-map` writes. */
  static readonly folderMap = {
    summary: 'the side path: lost claims and lost bodies, unconsumed intents redelivered',
    folders: {
      'recover-effects': 'worker: lost claims and lost bodies, redelivery of unconsumed intents',
      'reconcile-effects': "asks a tool whether a lost body's effect happened (by idempotency key)",
      'redeliver-intents': 'bounded redelivery with backoff (IntentStore.markDelivered); consumer lag checked first',
    },
  };
}

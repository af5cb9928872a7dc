import { Global, Module } from '@nestjs/common';
import { CapabilityStore } from './capability-store';
import { ConfirmationStore } from './confirmation-store';
import { EffectStore } from './effect-store';

/** The owners of the capability, effect and confirmation state machines. */
@Global()
@Module({ providers: [CapabilityStore, EffectStore, ConfirmationStore], exports: [CapabilityStore, EffectStore, ConfirmationStore] })
export class LifecycleModule {}

import { Global, Module } from '@nestjs/common';
import { CapabilityStore } from './capability-store';
import { ConfirmationStore } from './confirmation-store';
import { EffectStore } from './effect-store';
import { InboxStore } from './inbox-store';
import { IntentStore } from './intent-store';
import { RetryStore } from './retry-store';

const STORES = [CapabilityStore, EffectStore, ConfirmationStore, InboxStore, IntentStore, RetryStore];

/** The owners of the capability, effect, confirmation, inbox, intent and retry state machines (ADR 0087). */
@Global()
@Module({ providers: STORES, exports: STORES })
export class LifecycleModule {}

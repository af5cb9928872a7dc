import { Inject, Injectable } from '@nestjs/common';
import { EffectStore } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';

/** Writes a started body's heartbeat into its effect's stored deadline (ADR 0077). */
export interface EffectDeadlines {
  /** False when the effect is no longer started (recovery closed it, or it finished). */
  extend(capabilityId: string, timeoutMs: number, maxRunMs: number): Promise<boolean>;
}

export const EFFECT_DEADLINES = Symbol('EFFECT_DEADLINES');

/** On the dispatcher's autocommit connection: one statement per written heartbeat, with the recovery grace. */
@Injectable()
export class StoredEffectDeadlines implements EffectDeadlines {
  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly effects: EffectStore,
  ) {}

  extend(capabilityId: string, timeoutMs: number, maxRunMs: number): Promise<boolean> {
    const grace = this.config.recovery.graceMs;
    return this.effects.heartbeat(this.db.sql, capabilityId, timeoutMs + grace, maxRunMs + grace);
  }
}

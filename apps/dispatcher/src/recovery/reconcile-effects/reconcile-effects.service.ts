import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ResultFields } from '@arvis/journal';
import type { FinishedEffect, LostEffect } from '@arvis/lifecycle';
import { ToolCatalog } from '@arvis/tool-catalog';
import { TOOL_BODIES, type Reconciliation, type ToolBody } from '../../execution/tools/tool-body';

/** Recovery's verdict on one lost effect: its new state and its final entry's result. */
export interface Verdict {
  effect: FinishedEffect;
  result: ResultFields;
}

const NOT_STARTED: ResultFields = {
  effectBoundary: 'effect_not_started',
  success: false,
  reasonCode: 'dispatcher_lost_before_effect',
  error: { code: 'dispatcher_lost_before_effect', message: 'the dispatcher that consumed the capability stopped before the effect happened; nothing ran' },
};

const NEVER_BEGAN: ResultFields = {
  ...NOT_STARTED,
  error: { code: 'dispatcher_lost_before_effect', message: 'started, but its body wrote no start marker; recovery took the slot, so it never began; nothing ran' },
};

const UNKNOWN: ResultFields = {
  effectBoundary: 'effect_state_unknown',
  success: false,
  reasonCode: 'dispatcher_lost_during_effect',
  error: { code: 'dispatcher_lost_during_effect', message: 'no result recorded before the deadline; the tool may have acted' },
};

/**
 * Settles what became of effects whose dispatcher was lost. A claim never started did nothing,
 * nor did a started one whose body never wrote its start marker (ADR 0056). A started one whose body began is looked up by its idempotency key when its tool can tell (completed with its
 * output, or certainly not happened); otherwise it is unknown, and never runs again.
 */
@Injectable()
export class ReconcileEffectsService {
  private readonly log = new Logger(ReconcileEffectsService.name);
  private readonly bodies: ReadonlyMap<string, ToolBody>;

  constructor(
    private readonly catalog: ToolCatalog,
    @Inject(TOOL_BODIES) bodies: ToolBody[],
  ) {
    this.bodies = new Map(bodies.map((b) => [b.name, b]));
  }

  /** `fenced`: started effects whose body-start slot recovery took: their bodies never began. */
  async verdicts(lost: readonly LostEffect[], fenced: ReadonlySet<string> = new Set()): Promise<Verdict[]> {
    return Promise.all(lost.map((l) => this.verdict(l, fenced.has(l.capabilityId))));
  }

  private async verdict(l: LostEffect, fenced: boolean): Promise<Verdict> {
    const result = l.state === 'effect_pending' ? NOT_STARTED : fenced ? NEVER_BEGAN : this.fromLookup(l, await this.lookUp(l));
    return { effect: { capabilityId: l.capabilityId, state: result.effectBoundary, reasonCode: result.reasonCode ?? null }, result };
  }

  private async lookUp(l: LostEffect): Promise<Reconciliation> {
    const body = this.bodies.get(l.tool);
    if (!body?.reconcile) return { found: 'cannot_tell' };
    try {
      return await body.reconcile({ idempotencyKey: l.idempotencyKey, capabilityId: l.capabilityId });
    } catch (e) {
      this.log.warn({ msg: 'reconciliation failed', capabilityId: l.capabilityId, tool: l.tool, error: (e as Error).message });
      return { found: 'cannot_tell' };
    }
  }

  private fromLookup(l: LostEffect, r: Reconciliation): ResultFields {
    if (r.found === 'none') {
      return { ...NOT_STARTED, error: { code: 'dispatcher_lost_before_effect', message: 'reconciled: the tool holds no effect for this idempotency key; nothing happened' } };
    }
    if (r.found === 'cannot_tell') return UNKNOWN;
    const valid = this.catalog.get(l.tool)?.output.safeParse(r.output);
    if (!valid?.success) {
      this.log.warn({ msg: 'reconciliation returned an output its schema refuses; left unknown', capabilityId: l.capabilityId, tool: l.tool });
      return UNKNOWN;
    }
    return { effectBoundary: 'effect_completed', success: true, output: valid.data };
  }
}

import type { AuthorizedEffectContext } from '@arvis/effect-context';
import type { ToolSet } from '@arvis/tool-catalog';
import type { ToolLogger } from '@arvis/tool-sdk';
import type { ToolDatabase } from './tool-database';

/** What the runner hands a body: the validated input and who and what the effect is for. */
export interface ToolInvocation {
  readonly input: unknown;
  readonly effectContext: AuthorizedEffectContext;
  readonly idempotencyKey: string;
  readonly signal: AbortSignal;
  /** Stable per capability; tools that record effects key them by it. */
  readonly capabilityId: string;
  readonly decisionId: string;
  /** See ToolInvocation.heartbeat in @arvis/tool-sdk (ADR 0077). */
  heartbeat(): void;
  readonly attempt: number;
  readonly logger: ToolLogger;
}

/** What a tool can say of an effect looked up by its idempotency key. */
export type Reconciliation =
  | { found: 'completed'; output: unknown }
  /** No effect exists, and none can still land: the action may run again. */
  | { found: 'none' }
  | { found: 'cannot_tell' };

/** The dispatcher's view of one tool's code (a package's ToolDefinition bound to the tools' pool). */
export interface ToolBody {
  readonly name: string;
  execute(invocation: ToolInvocation): Promise<unknown>;
  /** Optional: see ToolDefinition.reconcile in @arvis/tool-sdk. */
  reconcile?(lookup: { idempotencyKey: string; capabilityId: string }): Promise<Reconciliation>;
}

export const TOOL_BODIES = Symbol('TOOL_BODIES');

/** The one method of the tools' own pool a marker needs (a pg Pool or client). */
export interface MarkerConnection {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/** The body's start slot was taken by recovery (ADR 0056): the body must not run. */
export class BodyStartFencedError extends Error {
  constructor(capabilityId: string) {
    super(`recovery took the body-start slot of ${capabilityId}: the body did not run`);
    this.name = 'BodyStartFencedError';
  }
}

const UNIQUE_VIOLATION = '23505';

/**
 * Records, in an autocommitted statement on the tools' pool, that a body is about to act. A crash
 * after the marker may have acted; a crash before it certainly did not. The slot is unique per
 * capability, and recovery takes it (a fence row) before it calls a started effect without a
 * marker not started: a body whose own marker then conflicts does not run (ADR 0056). Written by
 * the dispatcher for every tool, so a package cannot forget it.
 *
 * The bodies of a group start together, so their markers are gathered for one event-loop turn and
 * written as one statement: one commit per group instead of one per body. Each body still waits
 * for its own marker to be committed before it acts, and a failed statement fails every body of
 * it before any acts. Only when the statement meets a fence (unique violation: nothing of it was
 * written) are the markers written one by one, to tell which bodies were fenced: off the hot path.
 */
export class BodyStartMarkers {
  private pending: { capabilityId: string; tool: string; done: (e?: Error) => void }[] = [];

  constructor(private readonly db: MarkerConnection) {}

  mark(tool: string, capabilityId: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ capabilityId, tool, done: (e) => (e ? reject(e) : resolve()) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      await this.db.query('INSERT INTO tool_body_starts (capability_id, tool) SELECT * FROM unnest($1::text[], $2::text[])', [
        batch.map((m) => m.capabilityId),
        batch.map((m) => m.tool),
      ]);
      batch.forEach((m) => m.done());
    } catch (e) {
      if ((e as { code?: string }).code !== UNIQUE_VIOLATION) return batch.forEach((m) => m.done(e as Error));
      await Promise.all(batch.map((m) => this.markOne(m)));
    }
  }

  // No conflict target: the package's role may insert markers, never read them (ADR 0034).
  private async markOne(m: { capabilityId: string; tool: string; done: (e?: Error) => void }): Promise<void> {
    try {
      const r = (await this.db.query('INSERT INTO tool_body_starts (capability_id, tool) VALUES ($1, $2) ON CONFLICT DO NOTHING', [m.capabilityId, m.tool])) as {
        rowCount?: number | null;
      };
      m.done(r.rowCount === 1 ? undefined : new BodyStartFencedError(m.capabilityId));
    } catch (e) {
      m.done(e as Error);
    }
  }
}

/**
 * Binds each tool of the set to its package's pool (`dbFor`); the start marker comes first, on
 * that same pool (a package's role may insert markers, never read them), then the body.
 */
export function toolBodies(set: ToolSet, dbFor: (packageName: string) => ToolDatabase, afterMarker: (decisionId: string) => void = () => {}): ToolBody[] {
  const markersByPool = new Map<ToolDatabase, BodyStartMarkers>();
  return set.packages.flatMap((pkg) => {
    const db = dbFor(pkg.name);
    let markers = markersByPool.get(db);
    if (!markers) markersByPool.set(db, (markers = new BodyStartMarkers(db)));
    const marked = markers;
    return pkg.tools.map(
      (def): ToolBody => ({
        name: def.name,
        execute: async (inv: ToolInvocation) => {
          await marked.mark(def.name, inv.capabilityId);
          afterMarker(inv.decisionId);
          return def.execute({ ...inv, db });
        },
        reconcile: def.reconcile ? (lookup) => def.reconcile!({ ...lookup, db }) : undefined,
      }),
    );
  });
}

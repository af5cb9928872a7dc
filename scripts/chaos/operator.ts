import { Pool } from 'pg';
import { TOOL_EFFECTS } from './measure';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request the operator made through the admin API, and what came of it. */
export interface OperatorAct {
  /** ms since the load started. */
  atMs: number;
  kind: 'resolve-completed' | 'resolve-not-happened' | 'release-quarantined';
  /** The decision (a resolution) or outbox seq (a release) acted on. */
  target: string;
  status: number;
  /** The refusal's typed error, or 'ok'. */
  outcome: string;
}

/** Counts of the operator's acts by kind and outcome, e.g. `resolve-not-happened 409 effect_may_still_run`. */
export function tallyActs(acts: readonly OperatorAct[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of acts) {
    const k = `${a.kind} ${a.status} ${a.outcome}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/**
 * An operator of the load's tenant at work while the load runs and after it (ADR 0036, 0056): at
 * each look, every unresolved effect_state_unknown is checked against the outside world (the
 * tool's own table, as they would ask the bank or read the notes) and resolved through the admin
 * API, "completed" when the effect is there and "not happened" when it is not; a refusal is tried
 * again at the next look. Quarantined outbox rows are released. Dead letters are not expected
 * (the DLQ check), so there is nothing to re-drive; their count is shown.
 */
export class ChaosOperator {
  readonly acts: OperatorAct[] = [];
  looks = 0;
  errors = 0;
  private running = false;
  private loop?: Promise<void>;

  constructor(
    private readonly authorizerPort: number,
    private readonly token: string,
    private readonly databaseUrl: string,
    private readonly clock: () => number,
  ) {}

  /** On duty from now, a look every `everyMs`, until stop(). */
  start(everyMs: number): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.look().catch(() => this.errors++);
        await sleep(everyMs);
      }
    })();
  }

  get onDuty(): boolean {
    return this.running;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async rows<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
    const pool = new Pool({ connectionString: this.databaseUrl, max: 1 });
    pool.on('error', () => undefined);
    try {
      return (await pool.query<T>(sql)).rows;
    } finally {
      await pool.end();
    }
  }

  private async look(): Promise<void> {
    this.looks++;
    // The effect of the action, as the tool's own reconcile finds it: its row, or the row its
    // idempotency key already booked (an idempotent tool's repeat reports completed, deduplicated,
    // with no row of its own; looking by capability alone, the operator answered "not happened",
    // was refused with late_result_completed at every look, and left the effect unresolved).
    const unknown = await this.rows<{ decision_id: string; acted: boolean }>(
      `SELECT e.decision_id, EXISTS (SELECT 1 FROM (${TOOL_EFFECTS}) t JOIN intents i ON i.intent_id = e.intent_id
                                     WHERE t.tool = i.tool AND (t.capability_id = e.capability_id OR t.idempotency_key = e.idempotency_key)) AS acted
       FROM effects e WHERE e.state = 'effect_state_unknown' AND e.resolved_at IS NULL AND e.waits_for IS NULL ORDER BY e.started_at`,
    );
    for (const u of unknown) {
      const outcome = u.acted ? 'completed' : 'not_happened';
      const note = u.acted ? "chaos operator: the tool's table holds the effect" : "chaos operator: the tool's table holds no effect";
      await this.act(u.acted ? 'resolve-completed' : 'resolve-not-happened', u.decision_id, `/admin/effects/${encodeURIComponent(u.decision_id)}/resolve`, { outcome, note });
    }
    const quarantined = await this.rows<{ seq: string }>(
      'SELECT seq::text AS seq FROM outbox WHERE quarantined_at IS NOT NULL AND published_at IS NULL AND discarded_at IS NULL ORDER BY seq',
    );
    for (const q of quarantined) await this.act('release-quarantined', q.seq, `/admin/outbox/${q.seq}/release`, { note: 'chaos operator: released' });
  }

  private async act(kind: OperatorAct['kind'], target: string, path: string, body: unknown): Promise<void> {
    const atMs = this.clock();
    let status = 0;
    let outcome = 'no answer';
    try {
      const res = await fetch(`http://127.0.0.1:${this.authorizerPort}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      status = res.status;
      outcome = res.ok ? 'ok' : (((await res.json().catch(() => ({}))) as { error?: string }).error ?? 'error');
    } catch {
      // The authorizer is down or paused: counted as an act with no answer, tried at the next look.
    }
    this.acts.push({ atMs, kind, target, status, outcome });
  }
}

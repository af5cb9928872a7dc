import { Inject, Injectable, Logger } from '@nestjs/common';
import { EffectStore } from '@arvis/lifecycle';
import { Database } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import { Tracing, traceIdOf } from '@arvis/tracing';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';
import type { Classified } from '../../outcomes/classify-result/classify-result';
import type { ClaimedIntent } from '../../intake/dispatch-intents/claimed-intent';
import { ResultRecorder } from '../../outcomes/record-results/result-recorder';
import { issueConsumptionProof } from '../run-tool/consumption-proof';
import { RunToolService } from '../run-tool/run-tool.service';
import { startDeadlineMs } from './start-deadline';
import { decisionFields, retryWhileTransient } from '@arvis/runtime';

/**
 * Runs a slice's claimed intents a group at a time (the tool concurrency): each group is marked
 * effect_started in one statement right before its bodies start, with deadlines from then (the
 * first group's start commits with the claim, ADR 0050; each later group's with the recording of
 * the group before it, ADR 0057), and its results are recorded as soon as the group is done. A crash therefore leaves unknown only
 * the bodies of one group; the rest are either recorded or still merely claimed. While the slice
 * runs, a heartbeat keeps the claims not yet started from being taken for a dead dispatcher's.
 */
@Injectable()
export class RunClaimedService {
  private readonly log = new Logger(RunClaimedService.name);

  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly db: Database,
    private readonly effects: EffectStore,
    private readonly catalog: ToolCatalog,
    private readonly tools: RunToolService,
    private readonly recorder: ResultRecorder,
    private readonly tracing: Tracing,
  ) {}

  /** Returns how many bodies ran. `preStarted`: claims the claim itself wrote effect_started (the first group). */
  async run(claimed: readonly ClaimedIntent[], preStarted: ReadonlySet<string> = new Set()): Promise<number> {
    const waiting = new Set(claimed.map((c) => c.intent.capabilityId).filter((id) => !preStarted.has(id)));
    const heartbeat = this.keepClaimed(waiting);
    let ran = 0;
    try {
      const size = this.config.toolConcurrency;
      const toStart = (group: readonly ClaimedIntent[]) => group.filter((c) => !preStarted.has(c.intent.capabilityId));
      // The claims of the next group that the previous group's recording already started.
      let startedByRecord: Set<string> | undefined;
      for (let i = 0; i < claimed.length; i += size) {
        const group = claimed.slice(i, i + size);
        // Claims are already committed: an outage here is waited out, not turned into a redelivery
        // that would find them consumed and leave them to recovery.
        const started = startedByRecord ?? (await this.start(toStart(group)));
        startedByRecord = undefined;
        for (const c of group) if (preStarted.has(c.intent.capabilityId)) started.add(c.intent.capabilityId);
        group.forEach((c) => waiting.delete(c.intent.capabilityId));
        const runnable = group.filter((c) => started.has(c.intent.capabilityId));
        if (runnable.length < group.length) this.log.warn({ msg: 'claims closed by recovery before they started; not run', count: group.length - runnable.length });
        const runs = runnable.map((c) => this.runOne(c));
        const results = await Promise.all(runs.map((r) => r.result));
        // The next group is started by the transaction that records this one: one commit per
        // group instead of two, and still committed before any of its bodies begins.
        const next = toStart(claimed.slice(i + size, i + 2 * size));
        startedByRecord = await this.tracing.inSpans('record results', runnable.map((c) => c.trace), () =>
          this.recorder.record(
            runnable.map((claimed, j) => ({ claimed, result: results[j] })),
            next.length > 0 ? (tx) => this.effects.start(tx, this.effectsToStart(next)) : undefined,
          ),
        );
        // After the timeouts are recorded: a body that settles later is then recorded as late.
        runs.forEach((r, j) => void r.late.then((result) => this.recordLate(runnable[j], result)));
        ran += runnable.length;
      }
      return ran;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** `late` settles only for a body that goes on after its timeout, with its own result. */
  private runOne(c: ClaimedIntent): { result: Promise<Classified>; late: Promise<Classified> } {
    let settled: (late: Classified) => void = () => {};
    const late = new Promise<Classified>((resolve) => (settled = resolve));
    const run = () =>
      this.tools.run(
        issueConsumptionProof(c.intent.capabilityId),
        {
          decisionId: c.intent.decisionId,
          capabilityId: c.intent.capabilityId,
          tool: c.stored.tool,
          payload: c.payload.value,
          effectContext: c.effectContext,
          idempotencyKey: c.stored.idempotencyKey,
          attempt: (c.intent.retry?.attempt ?? 0) + 1,
        },
        settled,
      );
    return { result: this.tracing.inSpans('run tool', [c.trace], run, { attributes: { 'arvis.tool': c.stored.tool } }), late };
  }

  private recordLate(claimed: ClaimedIntent, result: Classified): void {
    this.recorder.recordLate([{ claimed, result }]).catch((e: Error) => this.log.error({ msg: 'a late result was not recorded', ...decisionFields({ decisionId: claimed.intent.decisionId, tool: claimed.stored.tool, capabilityId: claimed.intent.capabilityId, traceId: traceIdOf(claimed.trace) }), error: e.message }));
  }

  /** effect_pending -> effect_started, one statement for the group; no statement when the claim already started them. */
  private async start(group: readonly ClaimedIntent[]): Promise<Set<string>> {
    if (group.length === 0) return new Set();
    return retryWhileTransient(
      () => this.effects.start(this.db.sql, this.effectsToStart(group)),
      Date.now() + this.config.recording.maxWaitMs,
      (attempt, e) => this.log.warn({ msg: 'database unavailable while starting effects', attempt, error: e.message }),
    );
  }

  private effectsToStart(group: readonly ClaimedIntent[]) {
    return group.map((c) => ({ capabilityId: c.intent.capabilityId, deadlineMs: startDeadlineMs(this.catalog, this.config, c.stored.tool) }));
  }

  private keepClaimed(waiting: Set<string>): NodeJS.Timeout {
    const grace = this.config.recovery.pendingGraceMs;
    return setInterval(() => {
      if (waiting.size === 0) return;
      this.effects.extendPending(this.db.sql, [...waiting], grace).catch((e: Error) => this.log.warn({ msg: 'claim heartbeat failed', error: e.message }));
    }, Math.max(100, Math.floor(grace / 3)));
  }
}

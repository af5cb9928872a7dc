// Decision-to-journal latency, as the benchmark has always measured it: from the moment a decision is
// handed to the producer to the moment its final journal entry (tool_result or a refusal) is read
// back from the journal topic, both on this process's clock.
import { JournalWatcher } from '@arvis/decision-client';
import type { Topics } from '@arvis/contracts';

const FINAL = new Set(['tool_result', 'authorization_refusal', 'admission_refusal']);

export class LatencyProbe {
  readonly sentAt = new Map<string, number>();
  readonly seenAt = new Map<string, number>();
  private readonly watcher: JournalWatcher;

  constructor(brokers: string[], topics: Topics) {
    this.watcher = new JournalWatcher(brokers, topics, (e) => {
      if (FINAL.has(e.kind) && !this.seenAt.has(e.decisionId)) this.seenAt.set(e.decisionId, performance.now());
    });
  }

  start = () => this.watcher.start();
  stop = () => this.watcher.stop();

  get duplicates(): number {
    return this.watcher.duplicatesSeen;
  }

  markSent(ids: readonly string[], at = performance.now()): void {
    for (const id of ids) this.sentAt.set(id, at);
  }

  /** Waits until every id has its final entry (or the timeout); returns how many are still missing. */
  async waitAll(ids: readonly string[], timeoutMs: number, progress?: (done: number) => void): Promise<number> {
    const tick = setInterval(() => progress?.(ids.filter((id) => this.seenAt.has(id)).length), 2000);
    try {
      await this.watcher.waitFor(() => ids.every((id) => this.seenAt.has(id)), timeoutMs);
    } finally {
      clearInterval(tick);
    }
    return ids.filter((id) => !this.seenAt.has(id)).length;
  }

  /** Latency of each id that completed, with the first and last completion instants. */
  measure(ids: readonly string[]): { latencies: number[]; firstSeen: number; lastSeen: number } {
    const seen = ids.filter((id) => this.seenAt.has(id) && this.sentAt.has(id));
    const at = seen.map((id) => this.seenAt.get(id)!);
    return { latencies: seen.map((id) => this.seenAt.get(id)! - this.sentAt.get(id)!), firstSeen: Math.min(...at), lastSeen: Math.max(...at) };
  }
}

import type { DecisionClient, DecisionInput } from '@arvis/decision-client';
import { DecisionMix, toDecision } from './decisions';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadStats {
  generated: number;
  /** Acknowledged by the broker (acks=all); a decision counts as sent once, however often it was. */
  sent: number;
  repeats: number;
  sendErrors: number;
  duplicatesSent: number;
}

/**
 * Decisions at a steady rate, queued and sent by one sender that keeps a failed batch and tries
 * it again (the broker may be down): a batch sent twice is a duplicate the inbox absorbs.
 */
export class DecisionLoad {
  readonly stats: LoadStats = { generated: 0, sent: 0, repeats: 0, sendErrors: 0, duplicatesSent: 0 };
  readonly sentIds = new Set<string>();
  private readonly sentList: DecisionInput[] = [];
  private readonly queue: DecisionInput[] = [];
  private readonly mix: DecisionMix;
  private timer?: NodeJS.Timeout;
  private sending = false;
  private startedAt = 0;

  constructor(
    private readonly client: DecisionClient,
    private readonly tag: string,
    seed: number,
    private readonly rate: number,
    private readonly identity: string,
  ) {
    this.mix = new DecisionMix(seed, tag);
  }

  start(): void {
    this.startedAt = Date.now();
    this.timer = setInterval(() => this.tick(), 100);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Catches up with the clock, so a late timer (a busy machine) does not lower the rate. */
  private tick(): void {
    const due = Math.floor((this.rate * (Date.now() - this.startedAt)) / 1000);
    while (this.stats.generated < due) {
      const mixed = this.mix.next();
      if (mixed.repeat) this.stats.repeats++;
      this.queue.push(toDecision(this.tag, this.stats.generated++, mixed, this.identity));
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.slice(0, 500);
        try {
          await this.client.send(batch);
        } catch {
          this.stats.sendErrors++;
          await sleep(500);
          continue;
        }
        this.queue.splice(0, batch.length);
        for (const d of batch) if (!this.sentIds.has(d.decisionId)) (this.sentIds.add(d.decisionId), this.sentList.push(d));
        this.stats.sent = this.sentIds.size;
      }
    } finally {
      this.sending = false;
    }
  }

  /** Waits (bounded) until every generated decision has been acknowledged. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && (this.queue.length || this.sending)) {
      void this.pump();
      await sleep(200);
    }
    return this.queue.length === 0;
  }

  /** Sends `count` already-sent decisions again, chosen by `rng`, unchanged. */
  async duplicate(count: number, rng: () => number): Promise<number> {
    if (!this.sentList.length) return 0;
    const again = Array.from({ length: count }, () => this.sentList[Math.floor(rng() * this.sentList.length)]);
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await this.client.send(again);
        this.stats.duplicatesSent += again.length;
        return again.length;
      } catch {
        await sleep(500);
      }
    }
    return 0;
  }
}

/**
 * Approves every pending ledger.transfer confirmation, as a human approver of the same tenant
 * would, through the authorizer's API; errors (the authorizer may be down) are retried next poll.
 */
export class Approver {
  approved = 0;
  errors = 0;
  /** Requests the authorizer refused with 429: the suite's own load held back, not a lost decision. */
  rateLimited = 0;
  private running = false;
  private loop?: Promise<void>;

  constructor(private readonly authorizerPort: number, private readonly token: string) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.pass().catch(() => this.errors++);
        await sleep(500);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async pass(): Promise<void> {
    const base = `http://127.0.0.1:${this.authorizerPort}`;
    const headers = { authorization: `Bearer ${this.token}` };
    const res = await fetch(`${base}/confirmations`, { headers, signal: AbortSignal.timeout(5000) });
    if (res.status === 429) return void this.rateLimited++;
    if (!res.ok) throw new Error(`GET /confirmations ${res.status}`);
    for (const c of (await res.json()) as { confirmationId: string }[]) {
      const r = await fetch(`${base}/confirmations/${c.confirmationId}/approve`, { method: 'POST', headers, signal: AbortSignal.timeout(5000) });
      if (r.ok) this.approved++;
      else if (r.status === 429) return void this.rateLimited++; // the rest wait for the next pass
      else if (r.status !== 409) this.errors++;
    }
  }
}

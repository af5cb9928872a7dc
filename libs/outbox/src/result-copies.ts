import { Counter } from 'prom-client';
import type { OutboundMessage } from '@arvis/kafka';

/**
 * Final entries' copies for the tenants' result topics (ADR 0073), counted once their send was
 * acknowledged: `published`, or why a copy had nowhere to go (`no_result_topic`: the tenant is not
 * in RESULT_TOPIC_TENANTS; `result_topic_missing`: it is, but the broker has no such topic). A copy
 * with nowhere to go is not lost: the entry is in the journal, on the journal topic and behind
 * the results API. Registered by the process's MetricsRegistry (libs/runtime).
 */
export const resultCopiesTotal = new Counter({
  name: 'arvis_result_copies_total',
  help: 'Final journal entries copied to their tenant\'s result topic (outcome published), or not, and why (no_result_topic, result_topic_missing); an unpublished copy stays in the journal and on the journal topic',
  labelNames: ['outcome'],
  registers: [],
});

export type ResultCopyOutcome = 'published' | 'no_result_topic' | 'result_topic_missing';

/**
 * Where each row's result copy goes, from the configured tenants and the topics the broker was
 * last seen to have. Pure: the relay refreshes `existing` and counts the outcomes after its send.
 */
export class ResultRouter {
  /** Result topics the broker was last seen to have; null before the first look. */
  existing: Set<string> | null = null;

  constructor(readonly topics: Readonly<Record<string, string>>) {}

  get enabled(): boolean {
    return Object.keys(this.topics).length > 0;
  }

  get wanted(): string[] {
    return Object.values(this.topics);
  }

  /** The topic of a tenant's copy, or why there is none. */
  route(tenant: string): { topic: string } | { unrouted: Exclude<ResultCopyOutcome, 'published'> } {
    const topic = Object.hasOwn(this.topics, tenant) ? this.topics[tenant] : undefined;
    if (topic === undefined) return { unrouted: 'no_result_topic' };
    if (this.existing !== null && !this.existing.has(topic)) return { unrouted: 'result_topic_missing' };
    return { topic };
  }

  /**
   * Adds the copies of these rows (their tenants, null for rows that are not a final entry's copy)
   * to the send, beside the messages themselves; returns the outcome of each copy, by tenant.
   */
  addCopies(byTopic: Map<string, OutboundMessage[]>, rows: readonly { resultTenant: string | null; message: OutboundMessage }[]): Map<string, Map<ResultCopyOutcome, number>> {
    const outcomes = new Map<string, Map<ResultCopyOutcome, number>>();
    if (!this.enabled) return outcomes;
    for (const { resultTenant, message } of rows) {
      if (resultTenant === null) continue;
      const route = this.route(resultTenant);
      const outcome: ResultCopyOutcome = 'topic' in route ? 'published' : route.unrouted;
      if ('topic' in route) {
        const list = byTopic.get(route.topic) ?? [];
        list.push(message);
        byTopic.set(route.topic, list);
      }
      const per = outcomes.get(resultTenant) ?? new Map<ResultCopyOutcome, number>();
      per.set(outcome, (per.get(outcome) ?? 0) + 1);
      outcomes.set(resultTenant, per);
    }
    return outcomes;
  }
}

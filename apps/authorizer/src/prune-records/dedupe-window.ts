/**
 * Whether the dedupe rows may be pruned now (ADR 0041). An inbox row is what makes a redelivered
 * decision a no-op; the decisions topic can hand a decision back (a consumer group reset, a
 * rewind) for as long as it keeps it. So the dedupe window must be longer than the topic's
 * retention.ms; an unknown or unlimited retention keeps every dedupe row.
 */
export function dedupeVerdict(dedupeMs: number, topicRetentionMs: number | null): { prune: true } | { prune: false; why: string } {
  if (topicRetentionMs === null) return { prune: false, why: 'the decisions topic retention.ms could not be read' };
  if (topicRetentionMs < 0) return { prune: false, why: 'the decisions topic keeps messages forever (retention.ms = -1)' };
  if (dedupeMs <= topicRetentionMs) {
    return { prune: false, why: `RETENTION_DEDUPE_MS (${dedupeMs}) is not longer than the decisions topic retention.ms (${topicRetentionMs})` };
  }
  return { prune: true };
}

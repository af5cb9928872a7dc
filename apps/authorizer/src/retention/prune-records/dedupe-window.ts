/**
 * The old rule, now only for inbox rows from before their offsets were kept (ADR 0041): such a
 * row may go only if the dedupe window is longer than the decisions topic's retention.ms; an
 * unknown or unlimited retention keeps it. Rows that know their offset are judged by the
 * partition's low watermark instead, since Kafka can keep a message past retention.ms.
 */
export function dedupeVerdict(dedupeMs: number, topicRetentionMs: number | null): { prune: true } | { prune: false; why: string } {
  if (topicRetentionMs === null) return { prune: false, why: 'the decisions topic retention.ms could not be read' };
  if (topicRetentionMs < 0) return { prune: false, why: 'the decisions topic keeps messages forever (retention.ms = -1)' };
  if (dedupeMs <= topicRetentionMs) {
    return { prune: false, why: `RETENTION_DEDUPE_MS (${dedupeMs}) is not longer than the decisions topic retention.ms (${topicRetentionMs})` };
  }
  return { prune: true };
}

import { Counter } from 'prom-client';

/**
 * Dead letters by their DLQ topic and reason code, counted where each record is built (one
 * increment, no statement); the process's MetricsRegistry serves it. A record whose transaction
 * then rolls back (its message is read again) is counted again.
 */
export const deadLettersTotal = new Counter({
  name: 'arvis_dead_letters_total',
  help: "Messages sent to a dead-letter topic, by that topic and the record's reason code",
  labelNames: ['dlq_topic', 'reason_code'],
  registers: [],
});

import { Counter, Gauge } from 'prom-client';

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

/**
 * Messages behind the partition's high watermark after this consumer handled a fetched batch,
 * by consumer group, topic and partition: set once per batch from the watermark kafkajs fetched
 * with it (no admin request). It is as old as the last batch: a consumer that stopped fetching
 * keeps its last figure, so a stalled consumer is seen by the broker-side lag or by its decisions
 * counter not moving. A partition moved to another member keeps its last series here until restart.
 */
export const consumerLag = new Gauge({
  name: 'arvis_consumer_lag_messages',
  help: 'Messages behind the high watermark after the last fetched batch, by consumer group, topic and partition',
  labelNames: ['group', 'topic', 'partition'],
  registers: [],
});

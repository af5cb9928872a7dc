/**
 * Whether one error is kafkajs saying the broker is down, busy or not ready: the faults a consumer
 * or producer waits out. Database faults are judged elsewhere (@arvis/persistence); the runtime's
 * isTransientFault joins both for the transport.
 */
const KAFKAJS_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
]);
export function isBrokerFaultShape(e: { name?: unknown; retriable?: unknown }): boolean {
  return typeof e.name === 'string' && e.name.startsWith('KafkaJS') && (KAFKAJS_NAMES.has(e.name) || e.retriable === true);
}

/** The same, for the error or any of its causes. */
export function isBrokerFault(error: unknown): boolean {
  for (let e = error as { name?: unknown; retriable?: unknown; cause?: unknown } | undefined, depth = 0; e && typeof e === 'object' && depth < 10; e = e.cause as typeof e, depth++) {
    if (isBrokerFaultShape(e)) return true;
  }
  return false;
}

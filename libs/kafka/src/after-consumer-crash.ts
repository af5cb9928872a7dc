
/** What the transport does once kafkajs's consumer has crashed. */
export type AfterCrash = 'nothing' | 'rejoin' | 'fatal';

/** kafkajs errors that mean the broker (or its group coordinator) is not there yet, whatever kafkajs calls them. */
const BROKER_NOT_READY = new Set(['KafkaJSGroupCoordinatorNotFound']);

function names(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error as { name?: unknown; cause?: unknown } | undefined, depth = 0; e && typeof e === 'object' && depth < 10; e = e.cause as typeof e, depth++) {
    if (typeof e.name === 'string') out.push(e.name);
  }
  return out;
}

/**
 * kafkajs restarts its consumer only after a retriable error. After a broker restart its group
 * coordinator look-up can run out of retries and throw KafkaJSGroupCoordinatorNotFound, which
 * kafkajs calls non-retriable: the consumer stopped for good and the service exited (seen by the
 * chaos suite's broker restart). A broker that is not ready is a transient fault like any other
 * (ADR 0018): the transport rejoins the group itself. Anything else stopping the consumer for good
 * is fatal: the process exits loudly rather than spin.
 */
export function afterConsumerCrash(error: unknown, kafkajsRestarts: boolean, closing: boolean, isTransient: (error: unknown) => boolean): AfterCrash {
  // kafkajs restarts it itself; or we are stopping it.
  if (kafkajsRestarts || closing) return 'nothing';
  if (names(error).some((n) => BROKER_NOT_READY.has(n)) || isTransient(error)) return 'rejoin';
  return 'fatal';
}

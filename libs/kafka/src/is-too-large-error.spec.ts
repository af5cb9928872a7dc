import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { isTooLargeError } from './kafka-client';

// The shapes kafkajs 2.2.4 rejects a send with: the broker's error, wrapped by its retriers.
// kafkajs's retriers pass the cause as a second argument its typings do not declare.
const wrap = (e: Error) => Object.assign(new KafkaJSNonRetriableError(e), { cause: e });
const protocol = (type: string, code: number) => new KafkaJSProtocolError({ type, code, retriable: false, message: type } as never);

describe('isTooLargeError', () => {
  it.each([
    ['MESSAGE_TOO_LARGE', 10],
    ['RECORD_LIST_TOO_LARGE', 18],
  ])('recognises %s however deeply the retriers wrapped it', (type, code) => {
    const broker = protocol(type, code);
    expect(isTooLargeError(broker)).toBe(true);
    const once = wrap(broker);
    expect(isTooLargeError(once)).toBe(true);
    expect(isTooLargeError(wrap(once))).toBe(true);
  });

  it('does not take other refusals or outages for a size problem', () => {
    expect(isTooLargeError(protocol('OUT_OF_ORDER_SEQUENCE_NUMBER', 45))).toBe(false);
    expect(isTooLargeError(new KafkaJSNumberOfRetriesExceeded(new Error('Connection error: ECONNREFUSED'), { retryCount: 8, retryTime: 5000 } as never))).toBe(false);
    expect(isTooLargeError(new Error('larger than the max message size'))).toBe(false);
    expect(isTooLargeError(undefined)).toBe(false);
  });
});

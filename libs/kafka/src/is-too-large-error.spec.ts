import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { isTooLargeError, sendRefusalOf } from './kafka-client';

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

describe('sendRefusalOf', () => {
  it('names a refusal for authorization of the topic, however wrapped, and no other', () => {
    const refused = protocol('TOPIC_AUTHORIZATION_FAILED', 29);
    expect([sendRefusalOf(refused), sendRefusalOf(wrap(wrap(refused)))]).toEqual(['authorization', 'authorization']);
    expect(sendRefusalOf(wrap(protocol('MESSAGE_TOO_LARGE', 10)))).toBe('too_large');
    expect(isTooLargeError(refused)).toBe(false);
    // A failed login or a refused cluster right concerns every row alike: not one row's refusal.
    expect(sendRefusalOf(protocol('SASL_AUTHENTICATION_FAILED', 58))).toBeNull();
    expect(sendRefusalOf(protocol('CLUSTER_AUTHORIZATION_FAILED', 31))).toBeNull();
    expect(sendRefusalOf(new Error('Not authorized to access topics'))).toBeNull();
  });
});

import { afterConsumerCrash } from './after-consumer-crash';
import { isBrokerFault } from './broker-fault';

const kafkajsError = (name: string, message: string, retriable = false, cause?: Error) => Object.assign(new Error(message), { name, retriable, cause });

describe('afterConsumerCrash', () => {
  it('rejoins after the group coordinator was not found (kafkajs calls it non-retriable and does not restart)', () => {
    expect(afterConsumerCrash(kafkajsError('KafkaJSGroupCoordinatorNotFound', 'Failed to find group coordinator'), false, false, isBrokerFault)).toBe('rejoin');
    const wrapped = kafkajsError('KafkaJSNonRetriableError', 'consumer crashed', false, kafkajsError('KafkaJSGroupCoordinatorNotFound', 'Failed to find group coordinator'));
    expect(afterConsumerCrash(wrapped, false, false, isBrokerFault)).toBe('rejoin');
  });

  it('rejoins after any other broker or database fault kafkajs gave up on', () => {
    expect(afterConsumerCrash(kafkajsError('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED'), false, false, isBrokerFault)).toBe('rejoin');
  });

  it('leaves a crash kafkajs restarts to kafkajs, and one while stopping to the stop', () => {
    expect(afterConsumerCrash(kafkajsError('KafkaJSNumberOfRetriesExceeded', 'retries'), true, false, isBrokerFault)).toBe('nothing');
    expect(afterConsumerCrash(kafkajsError('KafkaJSGroupCoordinatorNotFound', 'Failed to find group coordinator'), false, true, isBrokerFault)).toBe('nothing');
  });

  it('is fatal for anything else that stopped the consumer for good', () => {
    expect(afterConsumerCrash(new Error('no handler for topic t'), false, false, isBrokerFault)).toBe('fatal');
    expect(afterConsumerCrash(kafkajsError('KafkaJSProtocolError', 'Not authorized to access group'), false, false, isBrokerFault)).toBe('fatal');
  });
});

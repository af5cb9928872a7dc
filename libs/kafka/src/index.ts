export {
  createKafka,
  createProducer,
  KafkaPublisher,
  isTooLargeError,
  sendRefusalOf,
  type SendRefusal,
  toInboundHeaders,
  type InboundMessage,
  type KafkaConnection,
  type OutboundMessage,
  type Consumer,
  type Kafka,
  type Producer,
} from './kafka-client';
export { isolatedPattern, KafkaBatchTransport, type KafkaBatch, type KafkaBatchTransportOptions } from './kafka-batch.transport';
export { settleSlice, SettleStopped, type IsolatedMessage, type SettleOptions } from './settle-slice';
export { isBrokerFault, isBrokerFaultShape } from './broker-fault';
export { readTopic, type ReadRecord, type ReadTopicOptions } from './read-topic';
export { ensureTopics, type TopicPlan } from './topics';
export { PassErrorsToTransport } from './pass-errors-to-transport.filter';
export { consumerLag, deadLettersTotal } from './transport-metrics';

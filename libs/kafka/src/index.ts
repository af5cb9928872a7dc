export {
  createKafka,
  createProducer,
  KafkaPublisher,
  isTooLargeError,
  toInboundHeaders,
  type InboundMessage,
  type OutboundMessage,
  type Consumer,
  type Kafka,
  type Producer,
} from './kafka-client';
export { KafkaBatchTransport, type KafkaBatch, type KafkaBatchTransportOptions } from './kafka-batch.transport';
export { ensureTopics, type TopicPlan } from './topics';

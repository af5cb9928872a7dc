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
export { ensurePoolTopics, ensureTopics, type TopicPlan } from './topics';
export { PassErrorsToTransport } from './pass-errors-to-transport.filter';
export { consumerLag, deadLettersTotal } from './transport-metrics';
export {
  ACL_ROLES,
  AclsEnv,
  ADMIN_READER_GROUP_PREFIX,
  ANALYST_GROUP_PREFIXES,
  JOURNAL_HEAD_READER_GROUP_PREFIX,
  aclEntries,
  aclMarkdown,
  aclTable,
  aclRolesOf,
  dispatcherRoleOf,
  unknownAclRoles,
  applyAcls,
  compareAcls,
  describeAllAcls,
  tablePrincipals,
  type AclOperation,
  type AclPlan,
  type AclRole,
  type AclRule,
  type HeldAcl,
  type PrincipalAclVerdict,
} from './acl-table';

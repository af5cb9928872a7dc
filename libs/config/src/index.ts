export { loadConfig, ConfigError, envInt, envOptionalInt, envString, envBool, envJson } from './load-config';
export {
  Profile,
  commonEnvShape,
  commonSettings,
  topicsFor,
  managementPortOf,
  type KafkaSettings,
  type DatabaseSettings,
  type RelaySettings,
  type DlqSettings,
  type CheckpointSettings,
  dlqRecordBytesFor,
} from './common-config';
export { FaultsSchema, faultFor, hasFaults, type Faults } from './faults';
export { TracesSampler, tracingEnvShape, tracingSettings, type TracingSettings } from './tracing-config';
export {
  SaslMechanism,
  kafkaSecurityEnvShape,
  kafkaTopicEnvShape,
  kafkaSecurity,
  kafkaTopicSettings,
  describeKafkaSecurity,
  type KafkaSecurity,
  type KafkaTopicSettings,
} from './kafka-security-config';

export { loadConfig, ConfigError, envInt, envOptionalInt, envString, envBool, envJson, envNamesOf, readFileBackedVariables } from './load-config';
export { ENV_DOCS, fileBacked, type EnvVariableDoc } from './env-docs';
export {
  Profile,
  commonEnvShape,
  journalShardsEnv,
  commonSettings,
  topicsFor,
  resultTopicsFor,
  resultTopicTenantsEnv,
  toolPoolsEnv,
  databaseUrlFor,
  LOCAL_DATABASE_URL,
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
export { arvisVersion } from './version';

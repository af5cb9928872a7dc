import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { envBool, envInt } from './load-config';

const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(unsetIfEmpty, z.string().min(1).optional());

export const SaslMechanism = z.enum(['none', 'plain', 'scram-sha-256', 'scram-sha-512']);
export type SaslMechanism = z.infer<typeof SaslMechanism>;

/**
 * How every Kafka client of a process authenticates (ADR 0033). Read by the services, the CLI and
 * the scripts alike; none of them builds a client without it. Secrets may come from files
 * (`*_FILE`), read once at start-up, so they need not sit in the environment.
 */
export const kafkaSecurityEnvShape = {
  KAFKA_SASL_MECHANISM: z.preprocess(unsetIfEmpty, SaslMechanism.default('none')),
  KAFKA_SASL_USERNAME: optionalString,
  KAFKA_SASL_PASSWORD: optionalString,
  KAFKA_SASL_PASSWORD_FILE: optionalString,
  /** TLS to the brokers; the system's CAs unless KAFKA_TLS_CA_FILE names others. */
  KAFKA_TLS: envBool(false),
  KAFKA_TLS_CA_FILE: optionalString,
  /** A client certificate (mutual TLS): both files or neither. */
  KAFKA_TLS_CERT_FILE: optionalString,
  KAFKA_TLS_KEY_FILE: optionalString,
};

/** How the project's topics are created (scripts/create-topics.ts, the test environments). */
export const kafkaTopicEnvShape = {
  KAFKA_TOPIC_REPLICATION_FACTOR: envInt(1, 1, 32767),
  /** With acks=all (every producer here), a send is stored on at least this many replicas. */
  KAFKA_TOPIC_MIN_INSYNC_REPLICAS: envInt(1, 1, 32767),
};

type Mechanism = Exclude<SaslMechanism, 'none'>;
/** One object type per mechanism, as kafkajs declares them. */
export type SaslCredentials = { [M in Mechanism]: { mechanism: M; username: string; password: string } }[Mechanism];

/** The subset of kafkajs's own client settings, so libs/kafka can pass it through unchanged. */
export interface KafkaSecurity {
  ssl?: boolean | { ca?: string[]; cert?: string; key?: string };
  sasl?: SaslCredentials;
}

export interface KafkaTopicSettings {
  replicationFactor: number;
  minInsyncReplicas: number;
}

type KafkaSecurityEnv = z.output<z.ZodObject<typeof kafkaSecurityEnvShape>>;
type KafkaTopicEnv = z.output<z.ZodObject<typeof kafkaTopicEnvShape>>;

function readSecretFile(name: string, path: string, issues: string[]): string | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    if (text.trim() === '') issues.push(`${name}: ${path} is empty`);
    return text;
  } catch (e) {
    issues.push(`${name}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    return undefined;
  }
}

function saslOf(env: KafkaSecurityEnv, profile: string, issues: string[]): KafkaSecurity['sasl'] {
  const mechanism = env.KAFKA_SASL_MECHANISM;
  const { KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: inline, KAFKA_SASL_PASSWORD_FILE: file } = env;
  if (mechanism === 'none') {
    if (username !== undefined || inline !== undefined || file !== undefined) {
      issues.push('KAFKA_SASL_USERNAME/PASSWORD are set but KAFKA_SASL_MECHANISM is none: name the mechanism (scram-sha-512, scram-sha-256, plain)');
    }
    return undefined;
  }
  if (username === undefined) issues.push(`KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=${mechanism}`);
  if ((inline === undefined) === (file === undefined)) {
    issues.push(`KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE: exactly one is required with KAFKA_SASL_MECHANISM=${mechanism}`);
  }
  // PLAIN sends the password itself; SCRAM proves knowledge of it without sending it.
  if (mechanism === 'plain' && !env.KAFKA_TLS && profile === 'production') {
    issues.push('KAFKA_SASL_MECHANISM=plain sends the password in clear: it needs KAFKA_TLS=true in the production profile');
  }
  const password = file !== undefined && inline === undefined ? readSecretFile('KAFKA_SASL_PASSWORD_FILE', file, issues)?.trim() : inline;
  if (username === undefined || password === undefined) return undefined;
  return { mechanism, username, password } as SaslCredentials;
}

function tlsOf(env: KafkaSecurityEnv, issues: string[]): KafkaSecurity['ssl'] {
  const { KAFKA_TLS_CA_FILE: caFile, KAFKA_TLS_CERT_FILE: certFile, KAFKA_TLS_KEY_FILE: keyFile } = env;
  if (!env.KAFKA_TLS) {
    const stray = Object.entries({ KAFKA_TLS_CA_FILE: caFile, KAFKA_TLS_CERT_FILE: certFile, KAFKA_TLS_KEY_FILE: keyFile }).filter(([, v]) => v !== undefined);
    if (stray.length > 0) issues.push(`${stray.map(([k]) => k).join(', ')}: set, but KAFKA_TLS is not true`);
    return undefined;
  }
  if ((certFile === undefined) !== (keyFile === undefined)) issues.push('KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE: set both or neither');
  const ca = caFile !== undefined ? readSecretFile('KAFKA_TLS_CA_FILE', caFile, issues) : undefined;
  const cert = certFile !== undefined ? readSecretFile('KAFKA_TLS_CERT_FILE', certFile, issues) : undefined;
  const key = keyFile !== undefined ? readSecretFile('KAFKA_TLS_KEY_FILE', keyFile, issues) : undefined;
  if (ca === undefined && cert === undefined && key === undefined) return true;
  return { ...(ca !== undefined ? { ca: [ca] } : {}), ...(cert !== undefined ? { cert } : {}), ...(key !== undefined ? { key } : {}) };
}

/** The security settings, or every problem with them (the caller stops with exit 78). */
export function kafkaSecurity(env: KafkaSecurityEnv, profile = 'production'): { security: KafkaSecurity; issues: string[] } {
  const issues: string[] = [];
  const sasl = saslOf(env, profile, issues);
  const ssl = tlsOf(env, issues);
  return { security: { ...(ssl !== undefined ? { ssl } : {}), ...(sasl !== undefined ? { sasl } : {}) }, issues };
}

export function kafkaTopicSettings(env: KafkaTopicEnv): { topics: KafkaTopicSettings; issues: string[] } {
  const issues: string[] = [];
  // A partition with fewer replicas than min.insync.replicas refuses every acks=all send.
  if (env.KAFKA_TOPIC_MIN_INSYNC_REPLICAS > env.KAFKA_TOPIC_REPLICATION_FACTOR) {
    issues.push(
      `KAFKA_TOPIC_MIN_INSYNC_REPLICAS (${env.KAFKA_TOPIC_MIN_INSYNC_REPLICAS}) is above KAFKA_TOPIC_REPLICATION_FACTOR ` +
        `(${env.KAFKA_TOPIC_REPLICATION_FACTOR}): every send would be refused`,
    );
  }
  return { topics: { replicationFactor: env.KAFKA_TOPIC_REPLICATION_FACTOR, minInsyncReplicas: env.KAFKA_TOPIC_MIN_INSYNC_REPLICAS }, issues };
}

/** Never the password: for logs and health output. */
export function describeKafkaSecurity(s: KafkaSecurity): string {
  const sasl = s.sasl ? `SASL ${s.sasl.mechanism} as ${s.sasl.username}` : 'no SASL';
  return `${sasl}, ${s.ssl ? 'TLS' : 'no TLS'}`;
}

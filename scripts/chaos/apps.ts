import { localKeyEnv, localKeys } from '../local-keys';
import { localToolPackages } from '../local-tools';
import { DATA, ROOT, type ChaosEnv } from './infra';
import type { AppSpec } from './processes';

const BASE_PORT = 3401;

/**
 * The authorizer's EFFECT_MAX_OVERRUN_MS in the suite: 20 s, not 15 minutes, so that the operator
 * can resolve a lost body's unknown effect as "not happened" within a run; a pause (PAUSE_MS in
 * schedule.ts) stays under it, as a real pause must stay under the real bound (ADR 0056).
 */
export const EFFECT_MAX_OVERRUN_MS = 20_000;

/**
 * One authorizer, two dispatchers in one consumer group and the relay as its own process; the
 * apps' built-in relays are off (RELAY_ENABLED=false), so the relay process is the only one.
 * Recovery runs often and with a short grace so that a run settles within its bound.
 */
export function appSpecs(env: ChaosEnv, databaseUrl: string, topicPrefix: string, brokers: string[]): AppSpec[] {
  const keys = localKeyEnv(localKeys(DATA));
  const common: Record<string, string> = {
    PATH: env.PATH,
    ARVIS_PROFILE: 'production',
    LOG_LEVEL: 'info',
    TRUST_PROXY: 'false',
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    ARVIS_TOPIC_PREFIX: topicPrefix,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    KAFKA_HEARTBEAT_INTERVAL_MS: '500',
    RELAY_POLL_MS: '250',
    RELAY_ENABLED: 'false',
    INTENT_SIGNING_KEY_ID: keys.INTENT_SIGNING_KEY_ID,
    INTENT_SIGNING_KEY: keys.INTENT_SIGNING_KEY,
    INTENT_VERIFICATION_KEYS: keys.INTENT_VERIFICATION_KEYS,
    TRUSTED_ISSUERS: keys.TRUSTED_ISSUERS,
    ARVIS_TOOL_PACKAGES: localToolPackages(ROOT),
  };
  const port = (i: number) => BASE_PORT + env.ARVIS_TEST_PORT_OFFSET + i;
  const dispatcher = { ...common, KAFKA_GROUP_ID: `${topicPrefix}dispatcher`, RECOVERY_INTERVAL_MS: '1000', RECOVERY_GRACE_MS: '3000', REDELIVER_AFTER_MS: '15000' };
  return [
    // The suite's one approver approves every transfer from one address: at the API's default of
    // 300 requests a minute it fell behind the long form's transfers, which then never settled.
    // It is load, not a person, so its limit is raised; a 429 it still meets is counted and shown.
    { name: 'authorizer', app: 'authorizer', port: port(0), env: { ...common, KAFKA_GROUP_ID: `${topicPrefix}authorizer`, CONFIRMATION_POLL_MS: '500', RETRY_POLL_MS: '500', API_RATE_LIMIT: '1000000', EFFECT_MAX_OVERRUN_MS: String(EFFECT_MAX_OVERRUN_MS) } },
    { name: 'dispatcher-1', app: 'dispatcher', port: port(1), env: dispatcher },
    { name: 'dispatcher-2', app: 'dispatcher', port: port(2), env: dispatcher },
    { name: 'relay', app: 'relay', port: port(3), env: common },
  ];
}

/** The identity issuer the apps trust (the same local keys). */
export function issuer(): { issuer: string; privateKeyPem: string } {
  const k = localKeys(DATA);
  return { issuer: k.issuer.issuer, privateKeyPem: k.issuer.privateKeyPem };
}

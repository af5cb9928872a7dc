import { join } from 'node:path';
import { localKeyEnv, localKeys } from '../local-keys';
import { DATA, type ChaosEnv } from './infra';
import type { AppSpec } from './processes';
import { LEDGER_POOL } from './pool-packages';

const BASE_PORT = 3401;

/**
 * The authorizer's EFFECT_MAX_OVERRUN_MS in the suite: 20 s, not 15 minutes, so that the operator
 * can resolve a lost body's unknown effect as "not happened" within a run; a pause (PAUSE_MS in
 * schedule.ts) stays under it, as a real pause must stay under the real bound (ADR 0056).
 */
export const EFFECT_MAX_OVERRUN_MS = 20_000;

/** The chaos suite's tool packages, one per pool (ADR 0081): built beside this file. */
export const SHARED_POOL_PACKAGE = join(__dirname, 'shared-pool-package');
export const LEDGER_POOL_PACKAGE = join(__dirname, 'ledger-pool-package');

/**
 * One authorizer, dispatchers for two pools (ADR 0081) and the relay as its own process:
 * dispatcher-1 serves the shared pool, dispatcher-2 the ledger pool (ledger.transfer), and
 * dispatcher-3 both, so each pool has two dispatchers and a fault on dispatcher-1 or -2 hits one
 * pool while the other goes on. The
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
    // The authorizer holds every pool's specs.
    ARVIS_TOOL_PACKAGES: [SHARED_POOL_PACKAGE, LEDGER_POOL_PACKAGE].join(','),
  };
  const port = (i: number) => BASE_PORT + env.ARVIS_TEST_PORT_OFFSET + i;
  const dispatcher = { ...common, KAFKA_GROUP_ID: `${topicPrefix}dispatcher`, RECOVERY_INTERVAL_MS: '1000', RECOVERY_GRACE_MS: '3000', REDELIVER_AFTER_MS: '15000' };
  return [
    // The suite's one approver approves every transfer from one address: at the API's default of
    // 300 requests a minute it fell behind the long form's transfers, which then never settled.
    // It is load, not a person, so its limit is raised; a 429 it still meets is counted and shown.
    { name: 'authorizer', app: 'authorizer', port: port(0), env: { ...common, KAFKA_GROUP_ID: `${topicPrefix}authorizer`, CONFIRMATION_POLL_MS: '500', RETRY_POLL_MS: '500', API_RATE_LIMIT: '1000000', EFFECT_MAX_OVERRUN_MS: String(EFFECT_MAX_OVERRUN_MS) } },
    { name: 'dispatcher-1', app: 'dispatcher', port: port(1), env: { ...dispatcher, DISPATCHER_POOLS: 'shared', ARVIS_TOOL_PACKAGES: SHARED_POOL_PACKAGE } },
    { name: 'dispatcher-2', app: 'dispatcher', port: port(2), env: { ...dispatcher, DISPATCHER_POOLS: LEDGER_POOL, ARVIS_TOOL_PACKAGES: LEDGER_POOL_PACKAGE } },
    { name: 'relay', app: 'relay', port: port(3), env: common },
    { name: 'dispatcher-3', app: 'dispatcher', port: port(4), env: { ...dispatcher, DISPATCHER_POOLS: `shared,${LEDGER_POOL}`, ARVIS_TOOL_PACKAGES: `${SHARED_POOL_PACKAGE},${LEDGER_POOL_PACKAGE}` } },
  ];
}

/** The identity issuer the apps trust (the same local keys). */
export function issuer(): { issuer: string; privateKeyPem: string } {
  const k = localKeys(DATA);
  return { issuer: k.issuer.issuer, privateKeyPem: k.issuer.privateKeyPem };
}

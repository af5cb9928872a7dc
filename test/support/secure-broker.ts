import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KafkaSecurity } from '@arvis/config';
import { DATA, ROOT } from './services';

// A second broker beside the suite's plaintext one: SASL SCRAM-SHA-512 over TLS (a self-signed
// certificate made at start), the StandardAuthorizer, nothing allowed without an ACL
// (scripts/kafka.sh start-secure; docs/kafka-security.md). Formatted afresh at each start, with
// exactly the users named. Shifted like the apps' ports (ARVIS_TEST_PORT_OFFSET), so two
// checkouts' suites do not collide.
const OFFSET = Number(process.env.ARVIS_TEST_PORT_OFFSET ?? 0);
const PORT = process.env.KAFKA_SECURE_PORT ?? String(9095 + OFFSET);
const CONTROLLER_PORT = process.env.KAFKA_SECURE_CONTROLLER_PORT ?? String(19095 + OFFSET);
export const SECURE_BROKERS = [`127.0.0.1:${PORT}`];
const ADMIN_PASSWORD = 'admin-secret-for-the-spec';
const CA_FILE = join(process.env.KAFKA_SECURE_DATA_DIR ?? join(DATA, 'kafka-secure'), 'run', 'tls', 'ca.pem');

/** A secured broker's users: the admin (a super user) and the named ones. */
export class SecureBroker {
  constructor(readonly users: readonly string[]) {}

  passwordOf(user: string): string {
    return user === 'admin' ? ADMIN_PASSWORD : `${user}-pw-${PORT}`;
  }

  /** kafkajs settings as this user (the CA is read after the broker has made it: each start makes a new one). */
  as(user: string): KafkaSecurity {
    return { ssl: { ca: [readFileSync(CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: user, password: this.passwordOf(user) } };
  }

  /** The variables a process reads to connect as this user. */
  env(user: string): Record<string, string> {
    return { KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: CA_FILE, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: user, KAFKA_SASL_PASSWORD: this.passwordOf(user) };
  }

  start(): Promise<unknown> {
    return this.script('start-secure');
  }

  stop(): Promise<unknown> {
    return this.script('stop-secure');
  }

  /**
   * `npm run kafka:acls` as an operator runs it, as the admin: the table (libs/kafka acl-table)
   * for the topics of `prefix`, with `env` (KAFKA_ACL_PRINCIPALS, the groups) on top.
   */
  applyAcls(prefix: string, env: Record<string, string>): Promise<unknown> {
    return promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'scripts', 'apply-kafka-acls.js')], {
      env: { PATH: process.env.PATH ?? '', KAFKA_BROKERS: SECURE_BROKERS.join(','), ARVIS_TOPIC_PREFIX: prefix, ...this.env('admin'), ...env },
      timeout: 60_000,
    });
  }

  private script(command: string) {
    const env = {
      ...process.env,
      KAFKA_SECURE_TLS: 'true',
      KAFKA_SECURE_PORT: PORT,
      KAFKA_SECURE_CONTROLLER_PORT: CONTROLLER_PORT,
      KAFKA_SECURE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      KAFKA_SECURE_USERS: this.users.map((u) => `${u}=${this.passwordOf(u)}`).join(' '),
    };
    return promisify(execFile)('bash', [`${ROOT}/scripts/kafka.sh`, command], { env, timeout: 120_000 });
  }
}

import './register-aliases';
import { join } from 'node:path';
import { createEnvironment, groupOf, saveSharedEnvironment } from './environment';
import { DATA, startApp, type RunningApp } from './services';

/** Starts the suite's shared authorizer and dispatcher once, against a fresh database and topics. */
export default async function globalSetup(): Promise<void> {
  const env = await createEnvironment('shared');
  const logDir = join(DATA, 'test-logs');
  const apps: RunningApp[] = await Promise.all([
    startApp('authorizer', 'shared-authorizer', { ...env.appEnv, KAFKA_GROUP_ID: groupOf(env, 'authorizer') }, 13101, logDir),
    startApp('dispatcher', 'shared-dispatcher', { ...env.appEnv, KAFKA_GROUP_ID: groupOf(env, 'dispatcher') }, 13102, logDir),
  ]);
  (globalThis as { __ARVIS_APPS__?: RunningApp[] }).__ARVIS_APPS__ = apps;
  saveSharedEnvironment({ ...env, apiUrl: `http://127.0.0.1:${apps[0].apiPort}` });
}

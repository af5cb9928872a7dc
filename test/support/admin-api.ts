import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, type RunningApp } from './services';
import type { TestEnvironment } from './environment';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Calls the authorizer's admin API (ADR 0036) as an operator would, with a bearer token. */
export function adminApi(app: RunningApp) {
  return async (method: 'GET' | 'POST', path: string, token?: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await fetch(`http://127.0.0.1:${app.port}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

/** Runs the built CLI against an environment; resolves with its exit code and parsed --json output. */
export async function cli(env: TestEnvironment, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; out: Record<string, unknown> }> {
  const { DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX } = env.appEnv;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'), ...args, '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX, ...extraEnv },
    });
    return { code: 0, out: JSON.parse(stdout) as Record<string, unknown> };
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    return { code: err.code ?? -1, out: err.stdout ? (JSON.parse(err.stdout) as Record<string, unknown>) : {} };
  }
}

/** The operator entries of the journal (run arvis.operator and resolutions), in journal order. */
export const OPERATOR_ENTRIES_SQL = `SELECT entry FROM journal WHERE kind = 'operator_action' ORDER BY journal.journal_seq`;

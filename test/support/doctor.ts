import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../../apps/cli/src/generate-keys/generate-keys';
import { ROOT } from './services';

const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

/** `arvis doctor --json`'s document. */
export interface DoctorReport {
  ok: boolean;
  failed: string[];
  checks: { name: string; status: 'ok' | 'fail' | 'skip'; detail: string }[];
}

/** `arvis doctor` as an operator runs it: on the services' environment files, nothing started. */
export function doctor(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'doctor', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (e, stdout) =>
      resolve({ code: e ? Number((e as { code?: number }).code) : 0, stdout }),
    );
  });
}

/** Writes environment files as an operator would (`export NAME='value'` lines) into a fresh folder. */
export function envFiles(prefix: string): (name: string, env: Record<string, string>) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return (name, env) => {
    const path = join(dir, name);
    writeFileSync(path, Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}\n`).join(''));
    return path;
  };
}

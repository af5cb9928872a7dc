// --compare: a commit's build beside the working tree's. The commit is exported with `git archive`
// into .data/bench/<sha> (a plain tree: no worktree registered in the repository, nothing to prune),
// given the working tree's node_modules when its package-lock.json is identical (npm ci otherwise),
// and built with its own `npm run build`. A finished build is reused by later runs.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Variant } from './services';

const run = promisify(execFile);

async function sh(cmd: string, cwd: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await run('bash', ['-c', cmd], { cwd, env, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export async function resolveCommit(root: string, commit: string, env: Record<string, string>): Promise<string> {
  return (await sh(`git rev-parse --verify ${JSON.stringify(`${commit}^{commit}`)}`, root, env)).trim();
}

export async function prepareCommit(root: string, commit: string, say: (l: string) => void, env: Record<string, string>): Promise<Variant> {
  const sha = await resolveCommit(root, commit, env);
  const dir = join(root, '.data', 'bench', sha);
  const variant = { label: `B ${sha.slice(0, 8)}`, root: dir, commit: sha };
  if (existsSync(join(dir, '.bench-built'))) {
    say(`compare: reusing the build of ${sha.slice(0, 12)} in ${dir}`);
    return variant;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  say(`compare: exporting ${sha.slice(0, 12)} into ${dir}`);
  await sh(`git archive ${sha} | tar -x -C ${JSON.stringify(dir)}`, root, env);
  const sameLock = readFileSync(join(root, 'package-lock.json'), 'utf8') === readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (sameLock) {
    say('compare: package-lock.json is identical: reusing node_modules');
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  } else {
    say('compare: package-lock.json differs: npm ci');
    await sh('npm ci --no-audit --no-fund --loglevel=error', dir, env);
  }
  say(`compare: building ${sha.slice(0, 12)}`);
  await sh('npm run --silent build', dir, env);
  writeFileSync(join(dir, '.bench-built'), `${new Date().toISOString()}\n`);
  return variant;
}

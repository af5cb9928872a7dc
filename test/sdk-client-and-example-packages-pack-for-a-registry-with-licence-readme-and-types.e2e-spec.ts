import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './support/services';

const run = promisify(execFile);

// What a registry would receive from each package a team outside the project installs: built by
// `npm run build` / scripts/build-example-tools.sh first (scripts/test.sh does both).
const PACKAGES = ['libs/tool-sdk', 'libs/decision-client', 'examples/webhook-tool', 'examples/mcp-tool'];

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: unknown;
  dependencies?: Record<string, string>;
}

/** Every file path an exports map names (its conditions' leaves), minus the package.json entry. */
const exportTargets = (exports: unknown): string[] =>
  typeof exports === 'string' ? [exports] : Object.values((exports ?? {}) as Record<string, unknown>).flatMap(exportTargets);
const bare = (path: string) => path.replace(/^\.\//, '');

describe.each(PACKAGES)('%s packed for a registry', (dir) => {
  const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
  let files: string[];

  beforeAll(async () => {
    // --ignore-scripts: the package's prepack (a rebuild) is not what is checked here.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: join(ROOT, dir) });
    files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  });

  it('carries the project licence, its README and its types, and is publishable', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(readFileSync(join(ROOT, dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.private).toBeUndefined();
    // A dependency on a local path would not resolve for anyone installing from a registry.
    expect(Object.values(manifest.dependencies ?? {}).filter((v) => /^(file|link):/.test(v))).toEqual([]);
    expect(manifest.types).toMatch(/\.d\.ts$/);
  });

  it('holds every entry point it declares, and no sources, specs or maps', () => {
    const declared = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {}), ...exportTargets(manifest.exports)].filter((p): p is string => p !== undefined);
    const missing = declared.map(bare).filter((p) => !files.includes(p));
    if (missing.length > 0) throw new Error(`${dir} packs without ${missing.join(', ')}: build it first (npm run build; bash scripts/build-example-tools.sh)`);
    expect(files.filter((f) => /(\.spec\.|\.map$|^src\/|tsconfig|node_modules)/.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '@arvis/config';
import { defineTool, type ToolPackage } from './tool-spec';
import { assembleTools, loadToolPackages, toolPackagesEnv } from './tool-packages';

const tool = (name: string) =>
  defineTool({
    name,
    description: name,
    input: z.strictObject({ text: z.string() }),
    output: z.strictObject({ id: z.string() }),
    idempotent: true,
    retryable: false,
    sideEffectful: true,
    timeoutMs: 1000,
    maxRisk: 0.5,
    requiresConfirmation: false,
    auditRequired: false,
    reversible: true,
    manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
    execute: async () => ({ id: '1' }),
  });
const pkg = (name: string, ...tools: string[]): ToolPackage => ({ name, version: '1.0.0', tools: tools.map(tool) });

/** A folder holding CommonJS modules, each exporting what `source` evaluates to. */
function modules(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'arvis-tool-packages-'));
  for (const [file, source] of Object.entries(files)) writeFileSync(join(dir, file), source);
  return dir;
}

const problemsOf = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  return [];
};

describe('tool packages', () => {
  it('reads ARVIS_TOOL_PACKAGES as a comma-separated list', () => {
    expect(toolPackagesEnv.parse(' ./a , b,')).toEqual(['./a', 'b']);
    expect(toolPackagesEnv.parse(undefined)).toEqual([]);
  });

  it('refuses a package that cannot be loaded or exports no valid ToolPackage, naming each', () => {
    const dir = modules({ 'empty.js': 'module.exports = { hello: 1 };', 'bad-tool.js': "module.exports = { toolPackage: { name: 'p', version: '1', tools: [{ name: 'x' }] } };" });
    // Specifiers without .js: jest's module mapper rewrites relative ones ending in .js.
    const problems = problemsOf(() => loadToolPackages(['./missing', './empty', './bad-tool'], dir));
    expect(problems[0]).toMatch(/^ARVIS_TOOL_PACKAGES: \.\/missing cannot be loaded: Cannot (find|resolve) module/);
    expect(problems).toContain('ARVIS_TOOL_PACKAGES: ./empty exports no valid ToolPackage (name: Invalid input: expected string, received undefined)');
    expect(problems).toContain('ARVIS_TOOL_PACKAGES: ./bad-tool exports no valid ToolPackage (tools.0.execute: execute must be a function)');
  });

  it('loads a package exported as toolPackage or as default, resolved from the given root', () => {
    const dir = modules({
      'named.js': "module.exports = { toolPackage: { name: 'a', version: '1', tools: [] } };",
      'default.js': "module.exports = { default: { name: 'b', version: '2', tools: [] } };",
    });
    expect(loadToolPackages(['./named', join(dir, 'default.js')], dir).map((p) => `${p.name}@${p.version}`)).toEqual(['a@1', 'b@2']);
    expect(problemsOf(() => loadToolPackages(['./named', './named'], dir))).toEqual(['ARVIS_TOOL_PACKAGES: package a named twice']);
  });

  it('refuses a tool name declared by two packages, and an empty catalog', () => {
    expect(problemsOf(() => assembleTools([pkg('one', 'x.do'), pkg('two', 'x.do')]))).toEqual([
      'tool x.do is declared by one and by two; tool names must be unique',
    ]);
    expect(problemsOf(() => assembleTools([]))[0]).toMatch(/^ARVIS_TOOL_PACKAGES: no tool packages configured/);
    expect(problemsOf(() => assembleTools([pkg('none')]))).toEqual(['the tool packages declare no tools']);
  });

  it('builds the catalog from schemas of another zod copy by their own safeParse and toJSONSchema', () => {
    // Not a zod object at all, as a second copy of zod is to this one's instanceof.
    const foreign = { safeParse: (v: unknown) => ({ success: true, data: v }), toJSONSchema: () => ({ type: 'object', title: 'foreign' }) };
    const set = assembleTools([{ name: 'p', version: '1', tools: [{ ...tool('f.x'), input: foreign as never }] }]);
    expect(set.catalog.manifest()).toMatchObject({ tools: [{ name: 'f.x', inputSchema: { type: 'object', title: 'foreign' } }] });
    expect(set.catalog.fingerprint).not.toBe(assembleTools([pkg('p', 'f.x')]).catalog.fingerprint);
  });

  it('keeps the catalog fingerprint when only display hints change, and refuses a malformed hint (ADR 0069)', () => {
    const hinted = (display: unknown) => ({ name: 'p', version: '1', tools: [{ ...tool('f.x'), display } as never] });
    const plain = assembleTools([pkg('p', 'f.x')]).catalog.fingerprint;
    expect(assembleTools([hinted({ text: { kind: 'enum', labels: { a: 'A' } } })]).catalog.fingerprint).toBe(plain);
    expect(assembleTools([hinted({ text: { kind: 'timestamp', unit: 'ms' } })]).catalog.fingerprint).toBe(plain);
    expect(problemsOf(() => assembleTools([hinted({ text: { kind: 'money' } })]))).toEqual([expect.stringContaining('a money hint names its currency or the field holding it')]);
    expect(problemsOf(() => assembleTools([hinted({ text: { kind: 'colour' } })])).length).toBe(1);
  });
});

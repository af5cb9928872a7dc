import 'reflect-metadata';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { MODULE_METADATA, PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { LifecycleModule } from '@arvis/lifecycle';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import type { ToolPackage } from '@arvis/tool-catalog';
import { z } from 'zod';
import { loadDispatcherConfig } from './config/dispatcher.config';
import { DispatcherModule, DispatcherValuesModule, FEATURE_MODULES } from './dispatcher.module';
import { ToolDatabases } from './execution/tools/tool-database';

/**
 * The dispatcher's feature modules mirror the path of an intent. A stage calls the stage it hands
 * the intent to (the pipeline calls claim and execution, both end in outcomes), so a stage's
 * module imports only modules of the stages after it, never one before it (no stage calls back up
 * the path, and no cycle). Recovery is a side path beside execution: what fell off between claim
 * and outcomes, ended in outcomes.
 */
const PATH: readonly (readonly string[])[] = [['intake'], ['claim'], ['execution', 'recovery'], ['outcomes']];
/** Folders that belong to no stage: the configuration, the fault points and the operators' report are used across all of them. */
const TOP_LEVEL = ['config', 'fault-points', 'report-operations'];

const SRC = __dirname;
const STAGES = PATH.flat();
const dirs = (path: string) => readdirSync(path).filter((n) => statSync(join(path, n)).isDirectory());
/** IntakeModule → intake. */
const stageOf = (m: unknown) => (m as Type).name.replace(/Module$/, '').toLowerCase();
const rank = (stage: string) => PATH.findIndex((s) => s.includes(stage));
const nameOf = (m: unknown) => (m === undefined ? 'undefined (an import cycle?)' : typeof m === 'symbol' ? m.toString() : ((m as DynamicModule).module ?? (m as Type)).name);
const metadata = (m: Type, key: string): unknown[] => Reflect.getMetadata(key, m) ?? [];

const tool = (name: string) => ({
  name,
  description: name,
  input: z.strictObject({}),
  output: z.strictObject({}),
  idempotent: true,
  retryable: false,
  sideEffectful: false,
  timeoutMs: 1000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  execute: async () => ({}),
});
const env = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }), KAFKA_GROUP_ID: 'g' };
const root = () => DispatcherModule.forRoot(loadDispatcherConfig(env), { tools: [{ name: 'a', version: '1.0.0', tools: [tool('a.run')] } as ToolPackage] });
const tokenOf = (p: Provider) => (typeof p === 'function' ? p : p.provide);
const classOf = (p: Provider): Type | undefined => (typeof p === 'function' ? p : 'useClass' in p ? p.useClass : undefined);

/** What a class's constructor injects: its parameter types, with the @Inject tokens in their places. */
function injected(cls: Type): unknown[] {
  const deps: unknown[] = [...((Reflect.getMetadata(PARAMTYPES_METADATA, cls) as unknown[] | undefined) ?? [])];
  for (const { index, param } of (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, cls) as { index: number; param: unknown }[] | undefined) ?? []) deps[index] = param;
  return deps;
}

describe("the dispatcher's feature modules follow the path of an intent", () => {
  let dynamic: DynamicModule;
  let values: DynamicModule;
  beforeAll(() => {
    dynamic = root();
    values = (dynamic.imports as DynamicModule[]).find((i) => i.module === DispatcherValuesModule)!;
  });
  // The pools of the tool databases, never connected: ended as the dispatcher would.
  afterAll(() => (values.providers!.find((p) => (p as { provide?: unknown }).provide === ToolDatabases) as { useValue: ToolDatabases }).useValue.onApplicationShutdown());

  it('has one module per stage, in its folder, and DispatcherModule imports each', () => {
    expect(STAGES.filter((s) => !existsSync(join(SRC, s, `${s}.module.ts`)))).toEqual([]);
    expect(FEATURE_MODULES.map(stageOf).sort()).toEqual([...STAGES].sort());
    for (const m of FEATURE_MODULES) {
      expect(Object.values(require(join(SRC, stageOf(m), `${stageOf(m)}.module`)) as object)).toContain(m);
    }
    expect(dynamic.imports).toEqual(expect.arrayContaining([...FEATURE_MODULES]));
  });

  it("imports no earlier stage's module from a feature module", () => {
    const wrong = FEATURE_MODULES.flatMap((m) =>
      metadata(m, MODULE_METADATA.IMPORTS)
        .filter((i) => i === undefined || (FEATURE_MODULES.includes(i as never) && rank(stageOf(i)) <= rank(stageOf(m))))
        .map((i) => `${m.name} (${stageOf(m)}) imports ${nameOf(i)}`),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps every use-case folder inside a stage folder, but the top-level ones', () => {
    expect(dirs(SRC).filter((d) => !STAGES.includes(d) && !TOP_LEVEL.includes(d))).toEqual([]);
  });

  it('exports from a feature module only what a module importing it injects', () => {
    const importers = [...FEATURE_MODULES.map((m) => ({ imports: metadata(m, MODULE_METADATA.IMPORTS), classes: [...metadata(m, MODULE_METADATA.PROVIDERS), ...metadata(m, MODULE_METADATA.CONTROLLERS)] })), { imports: (dynamic.imports ?? []) as unknown[], classes: (dynamic.providers ?? []) as unknown[] }];
    const unused = FEATURE_MODULES.flatMap((m) =>
      metadata(m, MODULE_METADATA.EXPORTS)
        .filter((e) => !importers.some((n) => n.imports.includes(m) && n.classes.some((p) => classOf(p as Provider) && injected(classOf(p as Provider)!).includes(e))))
        .map((e) => `${m.name} exports ${nameOf(e)}`),
    );
    expect(unused).toEqual([]);
  });

  it('provides each service once: no token in two modules', () => {
    const modules = [...FEATURE_MODULES.map((m) => ({ name: m.name, providers: metadata(m, MODULE_METADATA.PROVIDERS) as Provider[] })), { name: 'DispatcherModule', providers: dynamic.providers ?? [] }, { name: 'DispatcherValuesModule', providers: values.providers ?? [] }];
    const seen = new Map<unknown, string>();
    const twice: string[] = [];
    for (const { name, providers } of modules) {
      for (const token of providers.map(tokenOf)) {
        if (seen.has(token)) twice.push(`${nameOf(token)} in ${seen.get(token)} and ${name}`);
        seen.set(token, name);
      }
    }
    expect(twice).toEqual([]);
  });

  it('imports the global values after the library modules, so they stop first of the globals (tool databases before the database)', () => {
    const imports = (dynamic.imports ?? []).map((i) => (i as DynamicModule).module ?? i);
    const at = (m: unknown) => imports.indexOf(m as Type);
    expect(at(DispatcherValuesModule)).toBeGreaterThan(Math.max(at(PersistenceModule), at(RuntimeModule), at(LifecycleModule)));
    expect(values.global).toBe(true);
  });
});

import 'reflect-metadata';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import { LifecycleModule } from '@arvis/lifecycle';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import type { ToolPackage } from '@arvis/tool-catalog';
import { featureModuleChecks, stageOf } from '../../../test/support/feature-modules';
import { specTool } from '../../../test/support/spec-tool';
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
const env = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }), KAFKA_GROUP_ID: 'g' };
const root = () => DispatcherModule.forRoot(loadDispatcherConfig(env), { tools: [{ name: 'a', version: '1.0.0', tools: [specTool('a.run')] } as ToolPackage] });

describe("the dispatcher's feature modules follow the path of an intent", () => {
  let dynamic: DynamicModule;
  let values: DynamicModule;
  let checks: ReturnType<typeof featureModuleChecks>;
  beforeAll(() => {
    dynamic = root();
    values = (dynamic.imports as DynamicModule[]).find((i) => i.module === DispatcherValuesModule)!;
    checks = featureModuleChecks({ src: SRC, path: PATH, topLevel: TOP_LEVEL, featureModules: FEATURE_MODULES, root: dynamic, rootName: 'DispatcherModule', values, valuesName: 'DispatcherValuesModule' });
  });
  // The pools of the tool databases, never connected: ended as the dispatcher would.
  afterAll(() => (values.providers!.find((p) => (p as { provide?: unknown }).provide === ToolDatabases) as { useValue: ToolDatabases }).useValue.onApplicationShutdown());

  it('has one module per stage, in its folder, and DispatcherModule imports each', () => {
    expect(checks.stagesWithoutModuleFile()).toEqual([]);
    expect(FEATURE_MODULES.map(stageOf).sort()).toEqual([...checks.stages].sort());
    for (const m of FEATURE_MODULES) {
      expect(Object.values(require(join(SRC, stageOf(m), `${stageOf(m)}.module`)) as object)).toContain(m);
    }
    expect(dynamic.imports).toEqual(expect.arrayContaining([...FEATURE_MODULES]));
  });

  it("imports no earlier stage's module from a feature module", () => {
    expect(checks.importsUpThePath()).toEqual([]);
  });

  it('keeps every use-case folder inside a stage folder, but the top-level ones', () => {
    expect(checks.foldersOutsideStages()).toEqual([]);
  });

  it('exports from a feature module only what a module importing it injects', () => {
    expect(checks.unusedExports()).toEqual([]);
  });

  it('provides each service once: no token in two modules', () => {
    expect(checks.providedTwice()).toEqual([]);
  });

  it('imports the global values after the library modules, so they stop first of the globals (tool databases before the database)', () => {
    const imports = (dynamic.imports ?? []).map((i) => (i as DynamicModule).module ?? i);
    const at = (m: unknown) => imports.indexOf(m as Type);
    expect(at(DispatcherValuesModule)).toBeGreaterThan(Math.max(at(PersistenceModule), at(RuntimeModule), at(LifecycleModule)));
    expect(values.global).toBe(true);
  });
});

import 'reflect-metadata';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { LifecycleModule } from '@arvis/lifecycle';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import type { ToolPackage } from '@arvis/tool-catalog';
import { featureModuleChecks, metadata, nameOf, stageOf } from '../../../test/support/feature-modules';
import { ed25519Pem, specTool } from '../../../test/support/spec-tool';
import { AUTHORIZER_HTTP_CONTROLLERS, AuthorizerModule, AuthorizerValuesModule, FEATURE_MODULES } from './authorizer.module';
import { loadAuthorizerConfig } from './config/authorizer.config';
import { DecisionsConsumer } from './intake/receive-decisions/decisions.consumer';

/**
 * The authorizer's feature modules mirror the path of a decision. A stage calls the stage it
 * hands the decision to (intake the pipeline, the pipeline policy), so a stage's module imports
 * only modules of the stages after it, never one before it or beside it (no stage calls back up
 * the path, and no cycle). Retries and confirmations enter the pipeline from the side (a retry, a
 * resumed decision); admin and retention stand beside the path; all of them sit with intake,
 * before the pipeline.
 */
const PATH: readonly (readonly string[])[] = [['intake', 'retries', 'confirmations', 'admin', 'retention'], ['pipeline'], ['policy']];
/** Folders that belong to no stage: the configuration and the fault points are used across all of them. */
const TOP_LEVEL = ['config', 'fault-points'];

const SRC = __dirname;
const env = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
  INTENT_SIGNING_KEY: ed25519Pem('private'),
  TRUST_PROXY: 'false',
  TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'idp', alg: 'EdDSA', tenants: ['*'], publicKey: ed25519Pem('public') }]),
};
const root = () => AuthorizerModule.forRoot(loadAuthorizerConfig(env), { tools: [{ name: 'a', version: '1.0.0', tools: [specTool('a.run')] } as ToolPackage] });

describe("the authorizer's feature modules follow the path of a decision", () => {
  let dynamic: DynamicModule;
  let values: DynamicModule;
  let checks: ReturnType<typeof featureModuleChecks>;
  beforeAll(() => {
    dynamic = root();
    values = (dynamic.imports as DynamicModule[]).find((i) => i.module === AuthorizerValuesModule)!;
    checks = featureModuleChecks({ src: SRC, path: PATH, topLevel: TOP_LEVEL, featureModules: FEATURE_MODULES, root: dynamic, rootName: 'AuthorizerModule', values, valuesName: 'AuthorizerValuesModule' });
  });

  it('has one module per stage, in its folder, and AuthorizerModule imports each', () => {
    expect(checks.stagesWithoutModuleFile()).toEqual([]);
    expect(FEATURE_MODULES.map(stageOf).sort()).toEqual([...checks.stages].sort());
    for (const m of FEATURE_MODULES) {
      expect(Object.values(require(join(SRC, stageOf(m), `${stageOf(m)}.module`)) as object)).toContain(m);
    }
    expect(dynamic.imports).toEqual(expect.arrayContaining([...FEATURE_MODULES]));
  });

  it("imports no earlier stage's module from a feature module, nor one beside it", () => {
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

  // The API port serves only the route prefixes of AUTHORIZER_HTTP_CONTROLLERS (ADR 0038): a
  // controller of a feature module missing from it would be unreachable there.
  it("registers each controller once, in a feature module: the decisions consumer and the API port's controllers", () => {
    const registered = [...FEATURE_MODULES.flatMap((m) => metadata(m, MODULE_METADATA.CONTROLLERS)), ...(dynamic.controllers ?? [])].map(nameOf);
    expect(registered.sort()).toEqual([DecisionsConsumer, ...AUTHORIZER_HTTP_CONTROLLERS].map(nameOf).sort());
  });

  it('imports the global values after the library modules, as the dispatcher does', () => {
    const imports = (dynamic.imports ?? []).map((i) => (i as DynamicModule).module ?? i);
    const at = (m: unknown) => imports.indexOf(m as Type);
    expect(at(AuthorizerValuesModule)).toBeGreaterThan(Math.max(at(PersistenceModule), at(RuntimeModule), at(LifecycleModule)));
    expect(values.global).toBe(true);
  });
});

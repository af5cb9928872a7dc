import 'reflect-metadata';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { MODULE_METADATA, PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { LifecycleModule } from '@arvis/lifecycle';
import { PersistenceModule } from '@arvis/persistence';
import { RuntimeModule } from '@arvis/runtime';
import type { ToolPackage } from '@arvis/tool-catalog';
import { z } from 'zod';
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
const pem = (k: 'public' | 'private') => {
  const pair = generateKeyPairSync('ed25519');
  return k === 'public' ? pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() : pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
};
const env = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
  INTENT_SIGNING_KEY: pem('private'),
  TRUST_PROXY: 'false',
  TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'idp', alg: 'EdDSA', tenants: ['*'], publicKey: pem('public') }]),
};
const root = () => AuthorizerModule.forRoot(loadAuthorizerConfig(env), { tools: [{ name: 'a', version: '1.0.0', tools: [tool('a.run')] } as ToolPackage] });
const tokenOf = (p: Provider) => (typeof p === 'function' ? p : p.provide);
const classOf = (p: Provider): Type | undefined => (typeof p === 'function' ? p : 'useClass' in p ? p.useClass : undefined);

/** What a class's constructor injects: its parameter types, with the @Inject tokens in their places. */
function injected(cls: Type): unknown[] {
  const deps: unknown[] = [...((Reflect.getMetadata(PARAMTYPES_METADATA, cls) as unknown[] | undefined) ?? [])];
  for (const { index, param } of (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, cls) as { index: number; param: unknown }[] | undefined) ?? []) deps[index] = param;
  return deps;
}

describe("the authorizer's feature modules follow the path of a decision", () => {
  let dynamic: DynamicModule;
  let values: DynamicModule;
  beforeAll(() => {
    dynamic = root();
    values = (dynamic.imports as DynamicModule[]).find((i) => i.module === AuthorizerValuesModule)!;
  });

  it('has one module per stage, in its folder, and AuthorizerModule imports each', () => {
    expect(STAGES.filter((s) => !existsSync(join(SRC, s, `${s}.module.ts`)))).toEqual([]);
    expect(FEATURE_MODULES.map(stageOf).sort()).toEqual([...STAGES].sort());
    for (const m of FEATURE_MODULES) {
      expect(Object.values(require(join(SRC, stageOf(m), `${stageOf(m)}.module`)) as object)).toContain(m);
    }
    expect(dynamic.imports).toEqual(expect.arrayContaining([...FEATURE_MODULES]));
  });

  it("imports no earlier stage's module from a feature module, nor one beside it", () => {
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
    const modules = [...FEATURE_MODULES.map((m) => ({ name: m.name, providers: metadata(m, MODULE_METADATA.PROVIDERS) as Provider[] })), { name: 'AuthorizerModule', providers: dynamic.providers ?? [] }, { name: 'AuthorizerValuesModule', providers: values.providers ?? [] }];
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

import 'reflect-metadata';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { MODULE_METADATA, PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';

/** IntakeModule → intake. */
export const stageOf = (m: unknown) => (m as Type).name.replace(/Module$/, '').toLowerCase();
export const nameOf = (m: unknown) => (m === undefined ? 'undefined (an import cycle?)' : typeof m === 'symbol' ? m.toString() : ((m as DynamicModule).module ?? (m as Type)).name);
export const metadata = (m: Type, key: string): unknown[] => Reflect.getMetadata(key, m) ?? [];
const tokenOf = (p: Provider) => (typeof p === 'function' ? p : p.provide);
const classOf = (p: Provider): Type | undefined => (typeof p === 'function' ? p : 'useClass' in p ? p.useClass : undefined);
const dirs = (path: string) => readdirSync(path).filter((n) => statSync(join(path, n)).isDirectory());

/** What a class's constructor injects: its parameter types, with the @Inject tokens in their places. */
function injected(cls: Type): unknown[] {
  const deps: unknown[] = [...((Reflect.getMetadata(PARAMTYPES_METADATA, cls) as unknown[] | undefined) ?? [])];
  for (const { index, param } of (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, cls) as { index: number; param: unknown }[] | undefined) ?? []) deps[index] = param;
  return deps;
}

export interface AppModules {
  /** The app's src folder. */
  src: string;
  /** The stages in path order; stages in one group stand beside each other. */
  path: readonly (readonly string[])[];
  /** Folders that belong to no stage. */
  topLevel: readonly string[];
  featureModules: readonly Type[];
  /** The app module as `forRoot` returns it, and its global values module. */
  root: DynamicModule;
  rootName: string;
  values: DynamicModule;
  valuesName: string;
}

/**
 * The checks both apps' feature-modules-follow-the-path specs make of their module graph, each
 * returning what breaks the rule (empty: it holds).
 */
export function featureModuleChecks(app: AppModules) {
  const stages = app.path.flat();
  const rank = (stage: string) => app.path.findIndex((s) => s.includes(stage));
  const modules = app.featureModules;
  return {
    stages,
    /** Stages with no `<stage>/<stage>.module.ts`. */
    stagesWithoutModuleFile: () => stages.filter((s) => !existsSync(join(app.src, s, `${s}.module.ts`))),
    /** Imports of an earlier stage's module, of one beside it, or of nothing (a cycle). */
    importsUpThePath: () =>
      modules.flatMap((m) =>
        metadata(m, MODULE_METADATA.IMPORTS)
          .filter((i) => i === undefined || (modules.includes(i as never) && rank(stageOf(i)) <= rank(stageOf(m))))
          .map((i) => `${m.name} (${stageOf(m)}) imports ${nameOf(i)}`),
      ),
    /** Folders of src neither a stage nor a top-level one. */
    foldersOutsideStages: () => dirs(app.src).filter((d) => !stages.includes(d) && !app.topLevel.includes(d)),
    /** Exports no module importing the exporter injects. */
    unusedExports: () => {
      const importers = [
        ...modules.map((m) => ({ imports: metadata(m, MODULE_METADATA.IMPORTS), classes: [...metadata(m, MODULE_METADATA.PROVIDERS), ...metadata(m, MODULE_METADATA.CONTROLLERS)] })),
        { imports: (app.root.imports ?? []) as unknown[], classes: (app.root.providers ?? []) as unknown[] },
      ];
      return modules.flatMap((m) =>
        metadata(m, MODULE_METADATA.EXPORTS)
          .filter((e) => !importers.some((n) => n.imports.includes(m) && n.classes.some((p) => classOf(p as Provider) && injected(classOf(p as Provider)!).includes(e))))
          .map((e) => `${m.name} exports ${nameOf(e)}`),
      );
    },
    /** Tokens provided by two modules. */
    providedTwice: () => {
      const all = [
        ...modules.map((m) => ({ name: m.name, providers: metadata(m, MODULE_METADATA.PROVIDERS) as Provider[] })),
        { name: app.rootName, providers: app.root.providers ?? [] },
        { name: app.valuesName, providers: app.values.providers ?? [] },
      ];
      const seen = new Map<unknown, string>();
      const twice: string[] = [];
      for (const { name, providers } of all) {
        for (const token of providers.map(tokenOf)) {
          if (seen.has(token)) twice.push(`${nameOf(token)} in ${seen.get(token)} and ${name}`);
          seen.set(token, name);
        }
      }
      return twice;
    },
  };
}

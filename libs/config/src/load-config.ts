import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fileBacked } from './env-docs';

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * The only place that reads the environment. Parses it once, at start-up, and fails fast with
 * every problem listed, rather than letting a bad value surface as a fault deep in a batch.
 * A secret (env-docs.ts) may instead be read from the file `<NAME>_FILE` names (a mounted secret).
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env = process.env): z.output<S> {
  const { env: resolved, issues } = readFileBackedVariables(schema, env);
  const result = schema.safeParse(resolved);
  if (!result.success || issues.length > 0) {
    throw new ConfigError([...issues, ...(result.error?.issues ?? []).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)]);
  }
  return result.data;
}

/** The variables a schema reads (an object's keys; none for other schemas). */
export function envNamesOf(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * `<NAME>_FILE` for every file-backed variable the schema reads, unless the schema reads that
 * `_FILE` name itself (KAFKA_SASL_PASSWORD_FILE has its own rules). Both set, or a file that
 * cannot be read or is empty, is a configuration error; one trailing newline is not content.
 */
export function readFileBackedVariables(schema: z.ZodType, env: Env): { env: Env; issues: string[] } {
  const names = envNamesOf(schema);
  const out: Env = { ...env };
  const issues: string[] = [];
  for (const name of names.filter(fileBacked)) {
    const fileName = `${name}_FILE`;
    const path = env[fileName];
    if (names.includes(fileName) || path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      issues.push(`${name} and ${fileName}: both are set; set one`);
      continue;
    }
    try {
      const text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
      if (text.trim() === '') issues.push(`${fileName}: ${path} is empty`);
      else out[name] = text;
    } catch (e) {
      issues.push(`${fileName}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  return { env: out, issues };
}

/** Empty strings in the environment mean "not set". */
const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);

export const envInt = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).default(def));

/** An integer that may be left unset (undefined), for settings whose default depends on others. */
export const envOptionalInt = (min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).optional());

export const envString = (def: string) => z.preprocess(unsetIfEmpty, z.string().min(1).default(def));

export const envBool = (def: boolean) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .enum(['true', 'false', '1', '0'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  );

/** JSON in one variable; the default goes through the schema (prefault), so its rules hold unset too. */
export const envJson = <S extends z.ZodType>(schema: S, def: z.input<S>) =>
  z.preprocess((v) => {
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return { __invalidJson: v.slice(0, 40) };
    }
  }, schema.prefault(def as never));

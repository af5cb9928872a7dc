import { z } from 'zod';

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
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  }
  return result.data;
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

export const envJson = <S extends z.ZodType>(schema: S, def: z.input<S>) =>
  z.preprocess((v) => {
    if (v === undefined || v === '') return def;
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return { __invalidJson: v.slice(0, 40) };
    }
  }, schema);

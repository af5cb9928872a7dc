import { parseArgs } from 'node:util';

export interface ChaosOptions {
  seed: number;
  seconds: number;
  /** Decisions per second. */
  rate: number;
  pgRestart: boolean;
  /** Bound on the wait for quiescence after the load stops. */
  settleSeconds: number;
  ci: boolean;
}

export const USAGE =
  'usage: npm run chaos -- --seed S --seconds N [--rate R] [--settle-seconds N] [--no-pg-restart] [--ci]';

/** The command line, checked: a bad value is a usage error, never a default in disguise. */
export function parseOptions(argv: string[]): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      seed: { type: 'string' },
      seconds: { type: 'string' },
      rate: { type: 'string' },
      'settle-seconds': { type: 'string' },
      'no-pg-restart': { type: 'boolean', default: false },
      ci: { type: 'boolean', default: false },
    },
  });
  const ci = values.ci === true;
  const num = (name: string, raw: string | undefined, def: number, min: number, max: number): number => {
    const v = raw === undefined ? def : Number(raw);
    if (!Number.isInteger(v) || v < min || v > max) throw new Error(`--${name} must be an integer in ${min}..${max} (got ${raw})`);
    return v;
  };
  return {
    seed: num('seed', values.seed, Date.now() % 1_000_000, 0, 2 ** 32 - 1),
    seconds: num('seconds', values.seconds, ci ? 60 : 90, 20, 3600),
    rate: num('rate', values.rate, ci ? 30 : 50, 1, 2000),
    settleSeconds: num('settle-seconds', values['settle-seconds'], ci ? 50 : 120, 10, 3600),
    pgRestart: values['no-pg-restart'] !== true,
    ci,
  };
}

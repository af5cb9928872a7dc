// The seeded chaos suite (ADR 0021): `npm run chaos -- --seed S --seconds N [--no-pg-restart] [--ci]`.
// Runs the compiled apps (npm run build first) against the suite's own broker and database.
import { join } from 'node:path';
import { DATA, loadChaosEnv } from './infra';
import { parseOptions, USAGE, type ChaosOptions } from './options';
import { divertKafkajsLogs } from './quiet-kafkajs';
import { collect, printAndSave } from './report';
import { ChaosRun } from './run';
import { buildSchedule, describeFault } from './schedule';

async function main(): Promise<number> {
  let opts: ChaosOptions;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  divertKafkajsLogs(join(DATA, 'chaos', 'logs', stamp, 'suite-kafkajs.log'));
  const run = new ChaosRun(opts, loadChaosEnv(), stamp);
  const schedule = buildSchedule(opts.seed, { seconds: opts.seconds, pgRestart: opts.pgRestart });
  console.log(`[chaos] seed ${opts.seed}: ${opts.seconds} s at ${opts.rate} decisions/s${opts.pgRestart ? '' : ', no PostgreSQL restart'}; schedule (from the start of the load):`);
  for (const f of schedule) console.log(`  ${describeFault(f)}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`[chaos] ${signal}: stopping what the suite started`);
      void run.teardown().finally(() => process.exit(130));
    });
  }
  try {
    const parts = await run.setup();
    const faults = await run.loadPhase(parts, schedule);
    const settle = await run.settle(parts);
    const findings = await collect(parts, run.env, faults);
    const { file, checks } = printAndSave(run, parts, faults, settle, findings);
    const bad = checks.filter((c) => !c.ok);
    console.log(`\n[chaos] ${bad.length ? `${bad.length} violation(s)` : 'no violations'}; results in ${file}`);
    return bad.length ? 1 : 0;
  } finally {
    await run.teardown();
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`[chaos] ${e.stack ?? e.message}`);
    process.exit(3);
  },
);

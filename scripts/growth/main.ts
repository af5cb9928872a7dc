// npm run growth -- [--decisions N]: how the record grows per million decisions, and what retention
// leaves. Sends N notes.append decisions (default 20,000) through a fresh store and both apps, then
// reads each table's rows, heap, TOAST and index bytes (docs/retention.md); then prunes with zero
// windows (the material pass, then the dedupe pass) and reads them again, each time after VACUUM
// FULL so the figures are the rows' own footprint, not free space. Reports; asserts nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'pg';
import { z } from 'zod';
import { envInt, envString, loadConfig, topicsFor } from '@arvis/config';
import { DecisionClient } from '@arvis/decision-client';
import { RetentionPruner } from '@arvis/lifecycle';
import { LatencyProbe } from '../bench/latency';
import { decisionMaker, sendAtOnce } from '../bench/load';
import { freshStore, startApps, variantEnv, type Variant } from '../bench/services';
import { perMillionTable, RECORD_TABLES, tableSizes, type TableSize } from './table-sizes';

const ROOT = join(__dirname, '..', '..', '..');
const T0 = Date.now();
const say = (line: string) => console.log(`[growth +${Math.round((Date.now() - T0) / 1000)}s] ${line}`);

const GrowthEnv = z.object({
  KAFKA_BROKERS: envString('127.0.0.1:9092'),
  ARVIS_TEST_NAMESPACE: z.preprocess((v) => (v === undefined ? '' : v), z.string().regex(/^[A-Za-z0-9_]*$/)),
  ARVIS_TEST_PORT_OFFSET: envInt(0, 0, 50000),
  PATH: envString('/usr/local/bin:/usr/bin:/bin'),
  HOME: envString('/root'),
});

function options(argv: string[]): { decisions: number; out?: string } {
  const { values } = parseArgs({ args: argv, options: { decisions: { type: 'string' }, out: { type: 'string' } } });
  const decisions = Number(values.decisions ?? 20_000);
  if (!Number.isInteger(decisions) || decisions < 100 || decisions > 1_000_000) throw new Error('--decisions: an integer from 100 to 1000000');
  return { decisions, out: values.out };
}

/** Sends the load through a fresh store and waits for every final entry and an empty outbox. */
async function load(env: Record<string, string>, brokers: string[], basePort: number, logDir: string, n: number, db: () => Pool): Promise<void> {
  const v: Variant = { label: 'growth', root: ROOT, commit: 'working tree' };
  await freshStore(v, env);
  const apps = await startApps(v, env, basePort, logDir);
  const topics = topicsFor(env.ARVIS_TOPIC_PREFIX);
  const probe = new LatencyProbe(brokers, topics);
  const client = new DecisionClient(brokers, topics, 'arvis-growth');
  try {
    await probe.start();
    // The growth measure keeps the uniform load: its figures are per decision of one kind.
    const make = await decisionMaker({ issuer: env.DEMO_ISSUER, privateKeyPem: env.DEMO_ISSUER_KEY }, 'uniform');
    const sent = await sendAtOnce(client, probe, make, 'g', n);
    const missing = await probe.waitAll(sent.ids, 900_000, (done) => say(`${done}/${n} final entries`));
    if (missing > 0) throw new Error(`${missing} decisions had no final entry; see ${logDir}`);
    for (let unpublished = 1; unpublished > 0; await new Promise((r) => setTimeout(r, 500))) {
      unpublished = Number((await db().query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL')).rows[0].n);
    }
  } finally {
    await client.close().catch(() => undefined);
    await probe.stop().catch(() => undefined);
    await apps.stop();
  }
}

async function measured(db: Pool, label: string): Promise<{ label: string; sizes: TableSize[] }> {
  for (const t of RECORD_TABLES) await db.query(`VACUUM FULL ANALYZE ${t}`);
  return { label, sizes: await tableSizes(db) };
}

async function main(argv: string[]): Promise<void> {
  const o = options(argv);
  const env = loadConfig(GrowthEnv);
  const brokers = env.KAFKA_BROKERS.split(',');
  const dir = o.out ?? join(ROOT, 'bench', 'results', `growth-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const databaseUrl = `postgresql://postgres@127.0.0.1:5432/arvis_${env.ARVIS_TEST_NAMESPACE}growth`.toLowerCase();
  const base = { PATH: env.PATH, HOME: env.HOME, LOG_LEVEL: 'warn', KAFKA_BROKERS: env.KAFKA_BROKERS, DATABASE_URL: databaseUrl, ARVIS_TOPIC_PREFIX: `growth-${Date.now().toString(36)}.` };
  const appEnv = await variantEnv({ label: 'growth', root: ROOT, commit: '' }, base);
  let pool: Pool | undefined;
  const db = () => (pool ??= new Pool({ connectionString: databaseUrl, max: 2 }));
  try {
    say(`${o.decisions} notes.append decisions through a fresh store`);
    await load(appEnv, brokers, 3601 + env.ARVIS_TEST_PORT_OFFSET, join(dir, 'logs'), o.decisions, db);
    // The relay prunes published outbox rows after RELAY_RETENTION_MS (7 days): still here.
    const runs = [await measured(db(), 'after the load (nothing pruned)')];
    const pruner = new RetentionPruner(db(), { decisionsMs: 0, dedupeMs: 0, batch: 1000 });
    const material = await pruner.pruneOnce({ dedupe: false });
    runs.push(await measured(db(), `after the material pass (${JSON.stringify(material)})`));
    const dedupe = await pruner.pruneOnce({ dedupe: true });
    runs.push(await measured(db(), `after the dedupe pass (${JSON.stringify(dedupe)})`));
    const md = [`# Growth per million decisions (${o.decisions} sent, extrapolated linearly)`, ''];
    for (const r of runs) md.push(`## ${r.label}`, '', perMillionTable(r.sizes, o.decisions), '');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'growth.json'), `${JSON.stringify({ decisions: o.decisions, runs }, null, 2)}\n`);
    writeFileSync(join(dir, 'growth.md'), md.join('\n'));
    console.log(`\n${md.join('\n')}`);
    say(`results in ${dir}`);
  } finally {
    await pool?.end();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: Error) => {
    console.error(`[growth] ${e.stack ?? e.message}`);
    process.exit(1);
  },
);

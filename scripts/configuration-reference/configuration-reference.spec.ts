import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ENV_DOCS, envNamesOf } from '@arvis/config';
import { adrFilesIn, collectVariables, COMPONENTS, documentationGaps, fieldFacts, REGENERATE_COMMAND, renderConfigurationFiles, REFERENCE_FILE } from './configuration-reference';

const ROOT = join(__dirname, '..', '..');

describe('docs/configuration.md and the .env.example files', () => {
  it('are exactly what the generator makes from the zod schemas now', () => {
    const stale = [...renderConfigurationFiles(ROOT)].filter(([path, text]) => !existsSync(join(ROOT, path)) || readFileSync(join(ROOT, path), 'utf8') !== text).map(([p]) => p);
    if (stale.length) throw new Error(`out of date: ${stale.join(', ')}; regenerate with: ${REGENERATE_COMMAND}`);
    expect(stale).toEqual([]);
  });

  it('describe every variable a component reads, and nothing none reads', () => {
    expect(documentationGaps()).toEqual({ undocumented: [], unread: [] });
  });

  it('list the variables that were in no reference before, with their service and default', () => {
    const doc = readFileSync(join(ROOT, REFERENCE_FILE), 'utf8');
    const row = (name: string) => doc.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
    const nine = ['DISPATCHER_ID', 'KAFKA_CLIENT_ID', 'KAFKA_HEARTBEAT_INTERVAL_MS', 'KAFKA_PARTITIONS_CONCURRENCY', 'KAFKA_MAX_BATCH_BYTES', 'DATABASE_TX_TIMEOUT_MS', 'CONFIRMATION_POLL_MS', 'RELAY_PRUNE_BATCH', 'RELAY_PRUNE_INTERVAL_MS'];
    expect(nine.filter((n) => row(n) === undefined)).toEqual([]);
    expect(row('KAFKA_HEARTBEAT_INTERVAL_MS')).toContain('| integer | `3000` | ≥ 100 |');
    expect(row('KAFKA_CLIENT_ID')).toContain('authorizer: `arvis-authorizer`; dispatcher: `arvis-dispatcher`; relay: `arvis-relay`');
    expect(row('INTENT_SIGNING_KEY')).toContain('| **required** |  | secret (or `INTENT_SIGNING_KEY_FILE`) |');
    expect(row('DLQ_MAX_RAW_BYTES')).toContain('`131072`');
  });

  it('hold wire-contract.md to the DLQ raw limit the schema defaults to', () => {
    const bytes = Number(collectVariables().find((v) => v.name === 'DLQ_MAX_RAW_BYTES')!.readBy[0].facts.default);
    const text = readFileSync(join(ROOT, 'docs', 'wire-contract.md'), 'utf8').replace(/\s+/g, ' ');
    const said = [...text.matchAll(/`DLQ_MAX_RAW_BYTES` \((\d+) KiB by default\)/g)].map((m) => Number(m[1]) * 1024);
    expect({ said: said.length > 0, all: said.every((b) => b === bytes) }).toEqual({ said: true, all: true });
  });

  it('link only ADRs that exist', () => {
    const adrs = adrFilesIn(join(ROOT, 'docs', 'adr'));
    const missing = Object.entries(ENV_DOCS).flatMap(([name, d]) => (d.adr ?? []).filter((n) => !adrs.has(n)).map((n) => `${name}: ${n}`));
    expect(missing).toEqual([]);
  });

  it('give each service its own example file holding every variable it reads', () => {
    for (const c of COMPONENTS.filter((x) => x.envExample)) {
      const text = readFileSync(join(ROOT, c.envExample!), 'utf8');
      const named = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
      expect({ component: c.name, missing: envNamesOf(c.schema).filter((n) => !named.has(n)) }).toEqual({ component: c.name, missing: [] });
    }
    const authorizer = readFileSync(join(ROOT, 'apps/authorizer/.env.example'), 'utf8');
    expect(authorizer).toMatch(/^INTENT_SIGNING_KEY=$/m);
    expect(authorizer).toMatch(/^# INTENT_SIGNING_KEY_FILE=/m);
    expect(authorizer).toMatch(/^# CONSUMER_SLICE_SIZE=500$/m);
  });
});

describe('fieldFacts (what the reference reads from a schema)', () => {
  it('reads type, default and bounds through preprocessing, defaults and transforms', () => {
    expect(fieldFacts(z.preprocess((v) => v, z.coerce.number().int().min(1).max(9).default(3)))).toEqual({ type: 'integer', bounds: '1 to 9', default: '3' });
    expect(fieldFacts(z.string().min(1).optional())).toEqual({ type: 'string', bounds: '', default: null });
    expect(fieldFacts(z.string().min(1))).toMatchObject({ default: undefined });
    expect(fieldFacts(z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true'))).toEqual({ type: 'boolean', bounds: '`true`, `false`, `1`, `0`', default: 'true' });
  });

  it('collects each variable once with every component that reads it', () => {
    const brokers = collectVariables().find((v) => v.name === 'KAFKA_BROKERS')!;
    expect(brokers.readBy.map((r) => r.component)).toEqual(['authorizer', 'dispatcher', 'relay', 'mcp', 'cli', 'topics', 'kafka:acls', 'demo producer']);
  });
});

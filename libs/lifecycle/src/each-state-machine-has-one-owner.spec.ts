import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * One owner per state machine and its transitions (ADR 0087): every statement that writes one of
 * these tables (UPDATE, INSERT, DELETE; a batch insert through rowsPart/insertRows; a Prisma
 * model write) is in its store, in libs/lifecycle, and nowhere else.
 */
const OWNERS = {
  capabilities: 'libs/lifecycle/src/capability-store.ts',
  effects: 'libs/lifecycle/src/effect-store.ts',
  confirmations: 'libs/lifecycle/src/confirmation-store.ts',
  decision_inbox: 'libs/lifecycle/src/inbox-store.ts',
  intents: 'libs/lifecycle/src/intent-store.ts',
  retries: 'libs/lifecycle/src/retry-store.ts',
} as const;
type Table = keyof typeof OWNERS;
const TABLES = Object.keys(OWNERS) as Table[];

/** The documented exceptions (ADR 0087): each file, the tables it may write, and why. */
const EXCEPTIONS: readonly { file: string; tables: readonly Table[]; why: string }[] = [
  {
    file: 'libs/lifecycle/src/retention-pruner.ts',
    tables: TABLES,
    why:
      'retention (ADR 0041) is its own owner: one statement per batch deletes a finished decision\'s rows of several tables ' +
      'together with the retention horizon, its counts checked before the commit; no state moves, rows leave every machine at its end',
  },
  {
    file: 'apps/authorizer/src/pipeline/commit-intent/commit-intent.service.ts',
    tables: ['intents'],
    why: 'the slice\'s one combined INSERT (ADR 0083): the intents part is built beside the capabilities, inbox and outbox parts of one statement',
  },
];

// A table name as the target of a write: not `FOR UPDATE OF x` (a lock) nor `DO UPDATE SET` (an upsert's own table).
const SQL_WRITE = /(?<!\b(?:FOR|DO)\s+)\b(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
// insertRows(tx, 'table', ...) and rowsPart('table', ...): the batch inserts of libs/persistence.
const BATCH_INSERT = /\b(rowsPart|insertRows)\(\s*(?:[\w.]+\s*,\s*)?['"`]([a-z_][a-z0-9_]*)['"`]/g;
// Prisma's model writes (the client is loaded for model reads only, ADR 0051; none may write).
const PRISMA_MODELS: Record<string, Table> = {
  capability: 'capabilities',
  effect: 'effects',
  confirmation: 'confirmations',
  decisionInbox: 'decision_inbox',
  intent: 'intents',
  retry: 'retries',
};
const PRISMA_WRITE = /\.(capability|effect|confirmation|decisionInbox|intent|retry)\.(create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\(/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' || name === 'generated' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.(e2e-)?spec\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

/** Comment lines blanked (kept as empty lines, so line numbers hold): prose naming a statement is no write. */
const withoutComments = (text: string) =>
  text
    .split('\n')
    .map((line) => (/^\s*(\/\/|\/\*|\*)/.test(line) ? '' : line))
    .join('\n');

interface Write {
  file: string;
  line: number;
  table: Table;
  what: string;
}

function writesOf(file: string): Write[] {
  const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const found: Write[] = [];
  for (const m of text.matchAll(SQL_WRITE)) {
    const table = m[2].toLowerCase();
    if (table in OWNERS) found.push({ file, line: lineAt(m.index ?? 0), table: table as Table, what: `${m[1].replace(/\s+/g, ' ').toUpperCase()} ${table}` });
  }
  for (const m of text.matchAll(BATCH_INSERT)) {
    if (m[2] in OWNERS) found.push({ file, line: lineAt(m.index ?? 0), table: m[2] as Table, what: `${m[1]}('${m[2]}')` });
  }
  for (const m of text.matchAll(PRISMA_WRITE)) found.push({ file, line: lineAt(m.index ?? 0), table: PRISMA_MODELS[m[1]], what: `prisma ${m[1]}.${m[2]}` });
  return found;
}

const allowed = (w: Write) => OWNERS[w.table] === w.file || EXCEPTIONS.some((e) => e.file === w.file && e.tables.includes(w.table));

describe('each state machine has one owner', () => {
  const files = ['apps', 'libs'].flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f).split('\\').join('/'));
  const writes = files.flatMap(writesOf);

  it('sees the sources and the statements of every owner', () => {
    expect(files.length).toBeGreaterThan(100);
    // A scanner that stopped recognising statements would pass everything: each owner must be seen writing.
    const ownersSeen = TABLES.filter((t) => writes.some((w) => w.table === t && w.file === OWNERS[t]));
    expect(ownersSeen).toEqual(TABLES);
  });

  it('finds no write of capabilities, effects, confirmations, decision_inbox, intents or retries outside its store and the listed exceptions', () => {
    const offenders = writes.filter((w) => !allowed(w)).map((w) => `${w.file}:${w.line}: ${w.what} (owner: ${OWNERS[w.table]})`);
    expect(offenders).toEqual([]);
  });

  it('lists no exception that is no longer needed', () => {
    const stale = EXCEPTIONS.flatMap((e) => e.tables.filter((t) => !writes.some((w) => w.file === e.file && w.table === t)).map((t) => `${e.file}: ${t}`));
    expect(stale).toEqual([]);
  });

  it('knows the shapes it looks for', () => {
    const probe = (sql: string) => [...withoutComments(sql).matchAll(SQL_WRITE)].map((m) => m[2]);
    expect(probe('UPDATE intents i SET x = 1')).toEqual(['intents']);
    expect(probe('WITH m AS (\n  UPDATE\n    retries SET status = 1)')).toEqual(['retries']);
    expect(probe('INSERT  INTO decision_inbox (a) VALUES (1)')).toEqual(['decision_inbox']);
    expect(probe('delete from only "effects" where true')).toEqual(['effects']);
    expect(probe('SELECT 1 FROM intents ORDER BY 1 FOR UPDATE OF intents SKIP LOCKED')).toEqual([]);
    expect(probe('INSERT INTO runs (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2')).toEqual(['runs']);
    expect(probe('// UPDATE intents in a comment')).toEqual([]);
    expect([...`rowsPart('intents', C, r)`.matchAll(BATCH_INSERT)].map((m) => m[2])).toEqual(['intents']);
    expect([...`insertRows(tx, 'capabilities', C, r)`.matchAll(BATCH_INSERT)].map((m) => m[2])).toEqual(['capabilities']);
    expect([...`db.client.retry.updateMany({})`.matchAll(PRISMA_WRITE)].map((m) => m[1])).toEqual(['retry']);
  });
});

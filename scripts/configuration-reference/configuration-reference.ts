// docs/configuration.md and one .env.example per service, generated from the zod schemas the
// components parse at start-up and the descriptions beside them (libs/config/src/env-docs.ts), so
// the reference cannot list a variable the code does not read, or miss one it does.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ENV_DOCS, envNamesOf, fileBacked, type EnvVariableDoc } from '@arvis/config';
import { AuthorizerEnv } from '../../apps/authorizer/src/config/authorizer.config';
import { cliEnvSchema } from '../../apps/cli/src/cli.config';
import { DispatcherEnv } from '../../apps/dispatcher/src/config/dispatcher.config';
import { McpEnv } from '../../apps/mcp/src/config/mcp.config';
import { RelayEnv } from '../../apps/relay/src/relay.config';
import { AclsEnv, DemoProducerEnv, MigrateEnv, TopicsEnv } from '../script-env';

export const REGENERATE_COMMAND = 'npm run config:docs';
export const REFERENCE_FILE = 'docs/configuration.md';

export interface Component {
  name: string;
  /** How it is started, for the reader. */
  start: string;
  schema: z.ZodType;
  /** Repository path of its generated .env.example, for the long-running components. */
  envExample?: string;
}

export const COMPONENTS: readonly Component[] = [
  { name: 'authorizer', start: '`npm run start:authorizer`', schema: AuthorizerEnv, envExample: 'apps/authorizer/.env.example' },
  { name: 'dispatcher', start: '`npm run start:dispatcher`', schema: DispatcherEnv, envExample: 'apps/dispatcher/.env.example' },
  { name: 'relay', start: '`npm run start:relay`', schema: RelayEnv, envExample: 'apps/relay/.env.example' },
  { name: 'mcp', start: '`npm run start:mcp`', schema: McpEnv, envExample: 'apps/mcp/.env.example' },
  { name: 'cli', start: '`arvis …` (`npm run cli -- …`); each command reads only what it needs', schema: cliEnvSchema({ database: true, checkpointKeys: true, admin: true }), envExample: 'apps/cli/.env.example' },
  { name: 'migrate', start: '`npm run migrate`', schema: MigrateEnv },
  { name: 'topics', start: '`npm run topics`', schema: TopicsEnv },
  { name: 'kafka:acls', start: '`npm run kafka:acls`', schema: AclsEnv },
  { name: 'demo producer', start: '`scripts/demo.sh`', schema: DemoProducerEnv },
];

/** What the schema of one variable says, as the reference shows it. */
export interface FieldFacts {
  type: string;
  bounds: string;
  /** undefined: required (unset fails the schema). null: optional without a default. */
  default: string | null | undefined;
}

type Def = { type: string; in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType; format?: string; checks?: { _zod: { def: Record<string, unknown> } }[] };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema that gives the variable its type: through preprocessing, defaults and transforms. */
function core(s: z.ZodType): z.ZodType {
  const d = defOf(s);
  if (d.type === 'pipe') return core(defOf(d.in!).type === 'transform' ? d.out! : d.in!);
  if (d.type === 'default' || d.type === 'prefault' || d.type === 'optional' || d.type === 'nullable') return core(d.innerType!);
  return s;
}

const SAFE = Number.MAX_SAFE_INTEGER;
function range(min: number | null, max: number | null): string {
  const lo = min !== null && min > -SAFE && Number.isFinite(min) ? min : undefined;
  const hi = max !== null && max < SAFE && Number.isFinite(max) ? max : undefined;
  if (lo !== undefined && hi !== undefined) return `${lo} to ${hi}`;
  if (lo !== undefined) return `≥ ${lo}`;
  return hi !== undefined ? `≤ ${hi}` : '';
}

function typeAndBounds(s: z.ZodType): { type: string; bounds: string } {
  const c = core(s);
  const d = defOf(c);
  if (c instanceof z.ZodNumber) return { type: c.isInt ? 'integer' : 'number', bounds: range(c.minValue, c.maxValue) };
  if (c instanceof z.ZodEnum) {
    const options = c.options.map(String);
    if ([...options].sort().join() === '0,1,false,true') return { type: 'boolean', bounds: '`true`, `false`, `1`, `0`' };
    return { type: 'one of', bounds: options.map((o) => `\`${o}\``).join(', ') };
  }
  if (c instanceof z.ZodURL) return { type: 'URL', bounds: '' };
  if (c instanceof z.ZodString) {
    const regex = (d.checks ?? []).map((k) => k._zod.def).find((k) => k.format === 'regex')?.pattern as RegExp | undefined;
    const type = regex?.source.startsWith('^postgres') ? 'postgresql:// URL' : 'string';
    const pattern = regex && type === 'string' ? `\`${regex.source}\`` : '';
    const length = c.maxLength !== null ? `≤ ${c.maxLength} chars` : '';
    return { type, bounds: [pattern, length].filter(Boolean).join(', ') };
  }
  if (d.type === 'array') return { type: 'JSON list', bounds: '' };
  if (d.type === 'record' || d.type === 'object') return { type: 'JSON object', bounds: '' };
  return { type: 'string', bounds: '' };
}

function shown(v: unknown): string | null {
  if (v === undefined) return null;
  if (v === '') return '(empty)';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function fieldFacts(s: z.ZodType): FieldFacts {
  const unset = s.safeParse(undefined);
  return { ...typeAndBounds(s), default: unset.success ? shown(unset.data) : undefined };
}

export interface Variable {
  name: string;
  doc: EnvVariableDoc;
  /** Per component that reads it. */
  readBy: { component: string; facts: FieldFacts }[];
}

/** Every variable of every component, in the order the components declare them. */
export function collectVariables(components: readonly Component[] = COMPONENTS): Variable[] {
  const byName = new Map<string, Variable>();
  for (const c of components) {
    const shape = (c.schema as z.ZodObject).shape as Record<string, z.ZodType>;
    for (const name of envNamesOf(c.schema)) {
      const v = byName.get(name) ?? { name, doc: ENV_DOCS[name] ?? { description: '(undocumented)' }, readBy: [] };
      v.readBy.push({ component: c.name, facts: fieldFacts(shape[name]) });
      byName.set(name, v);
    }
  }
  return [...byName.values()];
}

/** Variables read by a component without a line in ENV_DOCS, and lines no component reads. */
export function documentationGaps(vars: Variable[] = collectVariables()): { undocumented: string[]; unread: string[] } {
  const read = new Set(vars.map((v) => v.name));
  return { undocumented: [...read].filter((n) => !(n in ENV_DOCS)), unread: Object.keys(ENV_DOCS).filter((n) => !read.has(n)) };
}

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|');

/** One value, or each component's where they differ. */
function merged(v: Variable, pick: (f: FieldFacts, component: string) => string): string {
  const values = v.readBy.map((r) => pick(r.facts, r.component));
  if (values.every((x) => x === values[0])) return values[0];
  return v.readBy.map((r, i) => `${r.component}: ${values[i] || '–'}`).join('; ');
}

/** The default a component shows: the documented one where the schema cannot say, else the schema's. */
export function computedDefaultOf(v: Variable, component: string): string | undefined {
  const c = v.doc.computedDefault;
  return typeof c === 'string' ? c : c?.[component];
}

function defaultCell(f: FieldFacts): string {
  if (f.default === undefined) return '**required**';
  if (f.default === null) return '–';
  return f.default === '(empty)' ? 'empty' : code(f.default);
}

function adrLinks(adrs: readonly string[] | undefined, adrFiles: Map<string, string>): string {
  return (adrs ?? []).map((n) => (adrFiles.has(n) ? `[${n}](adr/${adrFiles.get(n)})` : n)).join(', ');
}

function secretCell(v: Variable): string {
  // KAFKA_SASL_PASSWORD has a _FILE variable of its own, with its own row.
  const viaFile = fileBacked(v.name) && ENV_DOCS[`${v.name}_FILE`] === undefined;
  if (v.doc.secret) return viaFile ? `secret (or ${code(`${v.name}_FILE`)})` : 'secret';
  return viaFile ? `${code(`${v.name}_FILE`)} too` : '';
}

export function adrFilesIn(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).filter((f) => /^\d{4}-.*\.md$/.test(f)).map((f) => [f.slice(0, 4), f]));
}

function groupTitle(components: string[]): string {
  const services = ['authorizer', 'dispatcher', 'relay'];
  if (services.every((s) => components.includes(s))) {
    const others = components.filter((c) => !services.includes(c));
    return `Every service${others.length ? ` (and ${others.join(', ')})` : ''}`;
  }
  return components.join(', ');
}

const INTRO = `# Configuration reference

<!-- Generated by \`${REGENERATE_COMMAND}\` (scripts/configuration-reference) from the zod schemas each
component parses and the descriptions in libs/config/src/env-docs.ts. Do not edit: a unit spec fails
when this file differs from what the schemas say. -->

Every component reads its settings from environment variables, once, at start-up, validated by a
zod schema: a bad value, a missing required one, or settings that are valid one by one but not
together stop it with every problem listed on stderr and exit code 78 (EX_CONFIG), before it
connects to anything. An empty variable counts as unset.

- **Secrets from files.** A variable marked *secret* (and the long key lists marked *\`_FILE\` too*)
  may be read from a file instead: \`<NAME>_FILE=/run/secrets/<name>\` (one trailing newline is
  dropped). Setting both \`<NAME>\` and \`<NAME>_FILE\`, or naming a file that cannot be read or is
  empty, is a configuration error (exit 78). Secrets are never logged.
- **Profiles.** \`ARVIS_PROFILE\` is \`production\` unless set. In production \`DATABASE_URL\` must be
  set (there is no local default) and the authorizer needs \`TRUST_PROXY\`; fault points, the
  console dev sign-in, HS256 issuers and plain SASL without TLS are refused.
- **Keys.** \`arvis keys generate intent|checkpoint\` prints a key pair in the form these variables
  take; rotation is in [keys.md](keys.md).
- **Checking a deployment.** \`arvis doctor --authorizer-env FILE --dispatcher-env FILE …\` loads
  each file with its service's own rules and checks the database (and its clock), the migrations,
  the topics, the broker's ACLs (with \`--kafka-admin-env\`) and that the keys pair, one line per check ([operations.md](operations.md)).
- **Files to start from.** Each service has a generated \`.env.example\` (below) listing its
  variables with their defaults.

The test, benchmark and chaos harnesses (\`KAFKA_PORT\`, \`ARVIS_TEST_NAMESPACE\`,
\`ARVIS_TEST_PORT_OFFSET\`, …) are not listed: they configure the project's own machines, not a
deployment.
`;

export function renderReference(adrFiles: Map<string, string>, vars: Variable[] = collectVariables(), components: readonly Component[] = COMPONENTS): string {
  const out: string[] = [INTRO, '## Who reads what', '', '| Component | Started by | Variables | Example file |', '| --- | --- | --- | --- |'];
  for (const c of components) {
    const n = vars.filter((v) => v.readBy.some((r) => r.component === c.name)).length;
    out.push(`| ${c.name} | ${c.start} | ${n} | ${c.envExample ? `[${c.envExample}](../${c.envExample})` : '–'} |`);
  }
  const groups = new Map<string, Variable[]>();
  for (const v of vars) {
    const key = v.readBy.map((r) => r.component).join(', ');
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  const order = [...groups.keys()].sort((a, b) => b.split(', ').length - a.split(', ').length || components.findIndex((c) => c.name === a.split(', ')[0]) - components.findIndex((c) => c.name === b.split(', ')[0]));
  for (const key of order) {
    out.push('', `## ${groupTitle(key.split(', '))}`, '');
    if (key.includes(', ')) out.push(`Read by ${key}.`, '');
    out.push('| Variable | Type | Default | Bounds | Secret | ADR | Meaning |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const v of groups.get(key)!) {
      const def = merged(v, (f, component) => computedDefaultOf(v, component) ?? defaultCell(f));
      out.push(
        `| ${[code(v.name), merged(v, (f) => v.doc.type ?? f.type), def, merged(v, (f) => f.bounds), secretCell(v), adrLinks(v.doc.adr, adrFiles), v.doc.description].map(cell).join(' | ')} |`,
      );
    }
  }
  return out.join('\n') + '\n';
}

const plain = (s: string) => s.replace(/`/g, '').replace(/\*\*/g, '');

/** The .env.example of one component: required variables empty, the others commented with their default. */
export function renderEnvExample(component: Component, vars: Variable[] = collectVariables()): string {
  const out = [
    `# Environment of the ${component.name}, generated by \`${REGENERATE_COMMAND}\` from the schema it parses; do not edit.`,
    `# What each variable means, its bounds and its ADR: ${REFERENCE_FILE}.`,
    '# Required variables are left empty; the others are commented out with their default.',
    '# A secret may come from a file instead: <NAME>_FILE=/run/secrets/<name> (not both).',
  ];
  for (const v of vars) {
    const mine = v.readBy.find((r) => r.component === component.name);
    if (!mine) continue;
    const computed = computedDefaultOf(v, component.name);
    const required = mine.facts.default === undefined || /^(required|none: required)/.test(computed ?? '');
    out.push('', `# ${plain(v.doc.description)}${v.doc.adr ? ` (ADR ${v.doc.adr.join(', ')})` : ''}`);
    if (computed) out.push(`# Default: ${plain(computed)}.`);
    if (required) out.push(`${v.name}=`);
    // A documented default is prose, not a value to uncomment.
    else out.push(`# ${v.name}=${computed !== undefined || mine.facts.default === null || mine.facts.default === '(empty)' ? '' : mine.facts.default}`);
    if (fileBacked(v.name) && ENV_DOCS[`${v.name}_FILE`] === undefined) out.push(`# ${v.name}_FILE=/run/secrets/${v.name.toLowerCase()}`);
  }
  return out.join('\n') + '\n';
}

/** Every generated file, by repository path. */
export function renderConfigurationFiles(root: string): Map<string, string> {
  const vars = collectVariables();
  const files = new Map<string, string>([[REFERENCE_FILE, renderReference(adrFilesIn(join(root, 'docs', 'adr')), vars)]]);
  for (const c of COMPONENTS) if (c.envExample) files.set(c.envExample, renderEnvExample(c, vars));
  return files;
}

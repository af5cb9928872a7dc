import { parseArgs } from 'node:util';
import { EffectBoundary } from '@arvis/contracts';
import { parseTimePoint, type TimePoint } from './report-outcomes/report-window';
import { ADMIN_USAGE, adminRequestOf, AdminUsage, type AdminRequest } from './administer/admin-request';
import { DOCTOR_ROLES, type DoctorRole } from './doctor/doctor-roles';
import { EXIT_CODES_TEXT } from './exit-codes';
import { KEY_KINDS, type KeyKind } from './generate-keys/generate-keys';

export const USAGE = `Usage: arvis <command> [options] [--json]      (in a checkout: npm run cli -- <command> …)

Commands:
  tail [--tenant T] [--tool X] [--boundary B] [--run R] [--from-beginning] [--limit N]
        follow the journal topic (deduplicated by journalSeq) until --limit entries or Ctrl-C
  run <runId>       the run's decisions: final entry, pending entries, capability state
  replay <runId>    rebuild the run's results from stored material and recompute every commitment
  verify            walk the whole journal: hash chain, head, capability/result/decision bijections
  verify --from-topic
                    check the journal topic alone (no database): dedupe by journalSeq, recompute the
                    chain, check every signed checkpoint with the public keys; names the first bad seq
  verify --against-topic
                    compare the database's chain with the signed checkpoints and entries on the topic
  outbox --quarantined
                    outbox rows the relay set aside because the broker refused them as too large
  catalog           the tools of ARVIS_TOOL_PACKAGES: labels, risk ceiling, confirmation,
                    idempotency, input and output JSON Schema, and the catalog fingerprint
  report [--since T] [--until T] [--html FILE]
                    outcomes by tool, tenant, reason code and effect boundary, with latency per tool;
                    T is ISO 8601 (zone required with a time) or a span back from now (90s, 15m, 1h, 7d);
                    default the last 24 h; --html also writes one self-contained page with charts

Keys (no configuration read, nothing connected):
  keys generate intent|checkpoint [--key-id ID]
                    a new Ed25519 key pair, printed as the variables the services read (export
                    lines to eval; --json: one document); rotating keys: docs/keys.md

Checking a deployment (reads the services' configurations, starts nothing):
  doctor [--authorizer-env FILE] [--dispatcher-env FILE] [--relay-env FILE] [--mcp-env FILE]
         [--cli-env FILE] [--kafka-admin-env FILE] [--migrations DIR] [--max-clock-skew-ms N]
                    one line per check: each configuration loads, database reachable, its clock
                    within N ms of this machine's (default 5000), each login's rights exactly its
                    role's, migrations current, every topic present (partitions, replicas, min
                    ISR), the authorizer's intent key among the dispatcher's, checkpoint keys
                    pair, every trusted issuer's keys load (JWKS URLs answer); with
                    --kafka-admin-env (the operator principal, the file npm run kafka:acls reads)
                    the broker's ACLs: each principal may do what the ACL table grants it and no
                    more; exit 2 naming what failed

Operator acts, through the authorizer's admin API (ADMIN_URL, ADMIN_TOKEN: a token with the
admin role; each act is journaled naming its issuer and subject; docs/operations.md):
${ADMIN_USAGE}

Options:
  --json            one JSON document on stdout (tail: one JSON line per entry)
  --help            this text
  --version         the release this CLI is (package.json)

${EXIT_CODES_TEXT}
Configuration: DATABASE_URL, KAFKA_BROKERS, ARVIS_TOPIC_PREFIX, ARVIS_TOOL_PACKAGES (as for the
services); JOURNAL_CHECKPOINT_VERIFICATION_KEYS (JSON {keyId: Ed25519 public key}) for --from-topic
and --against-topic. --from-topic and catalog read no DATABASE_URL.`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface TailFilter {
  tenant?: string;
  tool?: string;
  boundary?: EffectBoundary;
  runId?: string;
}

export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | { name: 'tail'; filter: TailFilter; fromBeginning: boolean; limit?: number }
  | { name: 'run'; runId: string }
  | { name: 'replay'; runId: string }
  | { name: 'verify'; source: VerifySource }
  | { name: 'catalog' }
  | { name: 'outbox'; quarantined: true }
  | { name: 'report'; since?: TimePoint; until?: TimePoint; htmlFile?: string }
  | { name: 'admin'; request: AdminRequest }
  | { name: 'keys'; kind: KeyKind; keyId?: string }
  | { name: 'doctor'; envFiles: Partial<Record<DoctorRole, string>>; migrationsDir?: string; maxClockSkewMs?: number };

/** What verify checks: the database alone, the topic alone, or the one against the other. */
export type VerifySource = 'database' | 'topic' | 'database-against-topic';

export interface CommandLine {
  command: Command;
  json: boolean;
}

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  tenant: { type: 'string' },
  tool: { type: 'string' },
  boundary: { type: 'string' },
  run: { type: 'string' },
  'from-beginning': { type: 'boolean' },
  limit: { type: 'string' },
  quarantined: { type: 'boolean' },
  since: { type: 'string' },
  until: { type: 'string' },
  html: { type: 'string' },
  'from-topic': { type: 'boolean' },
  'against-topic': { type: 'boolean' },
  note: { type: 'string' },
  'session-id': { type: 'string' },
  'session-hash': { type: 'string' },
  outcome: { type: 'string' },
  'key-id': { type: 'string' },
  'authorizer-env': { type: 'string' },
  'dispatcher-env': { type: 'string' },
  'relay-env': { type: 'string' },
  'mcp-env': { type: 'string' },
  'cli-env': { type: 'string' },
  'kafka-admin-env': { type: 'string' },
  migrations: { type: 'string' },
  'max-clock-skew-ms': { type: 'string' },
} as const;

const TAIL_ONLY = ['tenant', 'tool', 'boundary', 'run', 'from-beginning', 'limit'] as const;
const REPORT_ONLY = ['since', 'until', 'html'] as const;
const ADMIN_ONLY = ['note', 'session-id', 'session-hash', 'outcome'] as const;

/** Parses argv (without node and the script); throws UsageError with a message for the user. */
export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const [name, ...rest] = positionals;
  if (values.version || name === 'version') return { command: { name: 'version' }, json };
  if (values.help || name === undefined || name === 'help') return { command: { name: 'help' }, json };

  refuseMisplacedOptions(name, values);
  const noMore = () => {
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  };
  const runIdArg = (): string => {
    if (rest.length !== 1 || rest[0].trim() === '') throw new UsageError(`${name} takes exactly one <runId>`);
    return rest[0];
  };

  switch (name) {
    case 'tail': {
      noMore();
      return { command: { name, filter: tailFilter(values), fromBeginning: values['from-beginning'] === true, limit: limitOf(values.limit) }, json };
    }
    case 'run':
    case 'replay':
      return { command: { name, runId: runIdArg() }, json };
    case 'catalog':
      noMore();
      return { command: { name }, json };
    case 'verify':
      noMore();
      if (values['from-topic'] && values['against-topic']) throw new UsageError('verify takes --from-topic or --against-topic, not both');
      return { command: { name, source: values['from-topic'] ? 'topic' : values['against-topic'] ? 'database-against-topic' : 'database' }, json };
    case 'outbox':
      noMore();
      // The only listing so far; the flag keeps room for others without changing this one.
      if (values.quarantined !== true) throw new UsageError('outbox needs --quarantined');
      return { command: { name, quarantined: true }, json };
    case 'report':
      noMore();
      return { command: reportCommand(values), json };
    case 'admin':
      return { command: adminCommand(rest, values), json };
    case 'keys':
      return { command: keysCommand(rest, values['key-id']), json };
    case 'doctor':
      noMore();
      return { command: doctorCommand(values), json };
    default:
      throw new UsageError(`unknown command: ${name}`);
  }
}

/** Each command's own options are refused on the others, by name. */
function refuseMisplacedOptions(name: string, values: Record<string, unknown>): void {
  if (name !== 'tail') {
    const misplaced = TAIL_ONLY.filter((o) => values[o] !== undefined);
    if (misplaced.length > 0) throw new UsageError(`--${misplaced[0]} applies to tail only`);
  }
  const notForReport = name === 'report' ? [] : REPORT_ONLY.filter((o) => values[o] !== undefined);
  if (notForReport.length > 0) throw new UsageError(`--${notForReport[0]} applies to report only`);
  const notForAdmin = name === 'admin' ? [] : ADMIN_ONLY.filter((o) => values[o] !== undefined);
  if (notForAdmin.length > 0) throw new UsageError(`--${notForAdmin[0]} applies to admin only`);
  const doctorOnly = [...DOCTOR_ROLES.map((r) => `${r}-env`), 'migrations', 'max-clock-skew-ms'].filter((o) => values[o] !== undefined);
  if (name !== 'doctor' && doctorOnly.length > 0) throw new UsageError(`--${doctorOnly[0]} applies to doctor only`);
  for (const [flag, command] of [['key-id', 'keys'], ['quarantined', 'outbox']] as const) {
    if (name !== command && values[flag] !== undefined) throw new UsageError(`--${flag} applies to ${command} only`);
  }
  if (name !== 'verify' && (values['from-topic'] !== undefined || values['against-topic'] !== undefined)) {
    throw new UsageError('--from-topic and --against-topic apply to verify only');
  }
}

function doctorCommand(values: Record<string, unknown>): Extract<Command, { name: 'doctor' }> {
  const envFiles: Partial<Record<DoctorRole, string>> = {};
  for (const role of DOCTOR_ROLES) if (typeof values[`${role}-env`] === 'string') envFiles[role] = values[`${role}-env`] as string;
  if (Object.keys(envFiles).length === 0) throw new UsageError('doctor needs at least one --<role>-env FILE (authorizer, dispatcher, relay, cli, kafka-admin)');
  const skew = values['max-clock-skew-ms'];
  if (typeof skew === 'string' && !/^\d{1,9}$/.test(skew)) throw new UsageError('--max-clock-skew-ms: a whole number of milliseconds');
  return {
    name: 'doctor',
    envFiles,
    ...(typeof values.migrations === 'string' ? { migrationsDir: values.migrations } : {}),
    ...(typeof skew === 'string' ? { maxClockSkewMs: Number(skew) } : {}),
  };
}

function keysCommand(rest: string[], keyId: string | undefined): Extract<Command, { name: 'keys' }> {
  const [verb, kind, ...more] = rest;
  const kinds = KEY_KINDS.join('|');
  if (verb !== 'generate' || !(KEY_KINDS as readonly string[]).includes(kind ?? '') || more.length > 0) throw new UsageError(`usage: keys generate ${kinds} [--key-id ID]`);
  // The id travels in every intent and checkpoint and is a JSON key in the verifiers' variable.
  if (keyId !== undefined && !/^[A-Za-z0-9._-]{1,200}$/.test(keyId)) throw new UsageError('--key-id: letters, digits, . _ - (at most 200)');
  return { name: 'keys', kind: kind as KeyKind, ...(keyId !== undefined ? { keyId } : {}) };
}

function tailFilter(values: { tenant?: string; tool?: string; boundary?: string; run?: string }): TailFilter {
  const filter: TailFilter = {};
  if (values.tenant !== undefined) filter.tenant = values.tenant;
  if (values.tool !== undefined) filter.tool = values.tool;
  if (values.run !== undefined) filter.runId = values.run;
  if (values.boundary !== undefined) {
    const b = EffectBoundary.safeParse(values.boundary);
    if (!b.success) throw new UsageError(`--boundary must be one of ${EffectBoundary.options.join(', ')}`);
    filter.boundary = b.data;
  }
  return filter;
}

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError('--limit must be a positive integer');
  return Number(raw);
}

function reportCommand(values: { since?: string; until?: string; html?: string }): Extract<Command, { name: 'report' }> {
  const point = (option: 'since' | 'until'): TimePoint | undefined => {
    const raw = values[option];
    if (raw === undefined) return undefined;
    const p = parseTimePoint(raw);
    if (!p) throw new UsageError(`--${option} must be an ISO 8601 date or date-time with zone, a span such as 15m, 1h or 7d, or now`);
    return p;
  };
  if (values.html !== undefined && values.html.trim() === '') throw new UsageError('--html needs a file name');
  return { name: 'report', since: point('since'), until: point('until'), ...(values.html !== undefined ? { htmlFile: values.html } : {}) };
}

function adminCommand(rest: string[], values: { note?: string; 'session-id'?: string; 'session-hash'?: string; outcome?: string }): Extract<Command, { name: 'admin' }> {
  const [action, ...args] = rest;
  if (action === undefined) throw new UsageError('admin needs an action');
  try {
    const request = adminRequestOf(action, args, { note: values.note, sessionId: values['session-id'], sessionHash: values['session-hash'], outcome: values.outcome });
    return { name: 'admin', request };
  } catch (e) {
    if (e instanceof AdminUsage) throw new UsageError(e.message);
    throw e;
  }
}

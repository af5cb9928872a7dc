// JSON Schema (2020-12) of every message on every topic, generated from the zod contracts so that a
// producer or consumer in another language validates against the same rules (ADR 0024).
import { z } from 'zod';
import {
  ActionDecisionSchema,
  DEFAULT_TOPICS,
  DlqRecordSchema,
  IntentMessageSchema,
  JournalCheckpointSchema,
  JournalEntrySchema,
  SYSTEM_ID_PREFIX,
} from '@arvis/contracts';

/** Where the schemas live in the repository, and the base of every `$id`. */
export const SCHEMAS_DIR = 'schemas';
export const SCHEMA_ID_BASE = 'https://schemas.arvis.dev/v1/';
export const REGENERATE_COMMAND = 'npm run schemas';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

export interface MessageSchema {
  /** File name under schemas/ and the last segment of the `$id`. */
  file: string;
  title: string;
  description: string;
  schema: z.ZodType;
  /**
   * `input` for what a producer outside may send (defaults may be omitted), `output` for what the
   * services write (every defaulted field present).
   */
  io: 'input' | 'output';
  /** Refinements zod cannot express in JSON Schema, restated here by hand, or named in `$comment`. */
  amend?: (s: JsonSchema) => void;
  notExpressed?: string;
  /** For schemas/README.md: the topics the message travels on and who writes it. */
  topics: readonly (keyof typeof DEFAULT_TOPICS)[];
  writtenBy: string;
}

const RFC3339_NOTE = 'Timestamps must also be real instants (2024-02-30T00:00:00.000Z matches the pattern and is refused).';
const JOURNAL_NOTE =
  'Not expressed here: the kind table of docs/wire-contract.md (which effectBoundary, success and reasonCode each kind takes, deduplicatedOf only on tool_result). ' +
  RFC3339_NOTE;

/** Every message on every topic. A new message type is one more entry here, then `npm run schemas`. */
export const MESSAGE_SCHEMAS: readonly MessageSchema[] = [
  {
    file: 'action-decision.schema.json',
    title: 'ActionDecision',
    description: 'A decision sent by a client to the decisions topic (key: runId). Unknown fields are refused.',
    schema: ActionDecisionSchema,
    topics: ['decisions'],
    writtenBy: 'any client: what may be sent (`processId` may be left out; it defaults to `"default"`)',
    io: 'input',
    amend: (s) => {
      // The zod refine on decisionId: ids in the system's namespace are reserved for its retries.
      s.properties!.decisionId.not = { pattern: `^${SYSTEM_ID_PREFIX.replace('.', '\\.')}` };
    },
    notExpressed: 'Not expressed here: integers above 2^53-1 anywhere in the message, duplicate keys and lone surrogates are refused (malformed_message).',
  },
  {
    file: 'intent-message.schema.json',
    title: 'IntentMessage',
    description: 'A signed intent on the intents topic (key: runId), written by the authorizer through its outbox.',
    schema: IntentMessageSchema,
    topics: ['intents'],
    writtenBy: 'the authorizer (through its outbox)',
    io: 'output',
    notExpressed: RFC3339_NOTE,
  },
  {
    file: 'journal-entry.schema.json',
    title: 'JournalEntry',
    description: 'A hash-chained journal entry copied to the journal topic (key: runId). Deduplicate by (chain, journalSeq): each chain numbers its entries from 1.',
    schema: JournalEntrySchema,
    topics: ['journal'],
    writtenBy: 'the authorizer and the dispatcher (through the outbox)',
    io: 'output',
    notExpressed: JOURNAL_NOTE,
  },
  {
    file: 'journal-checkpoint.schema.json',
    title: 'JournalCheckpoint',
    description:
      'A signed statement of a journal chain\'s head on the journal topic (key: the chain name; header arvis-record-type: checkpoint). It has no journalSeq and no kind: readers of entries skip it.',
    schema: JournalCheckpointSchema,
    topics: ['journal'],
    writtenBy: 'whichever process runs the active relay, when it holds a checkpoint key',
    io: 'output',
    notExpressed: 'Not expressed here: the Ed25519 signature over the JCS text of the record without `signature` (docs/journal-topic.md). ' + RFC3339_NOTE,
  },
  {
    file: 'dlq-record.schema.json',
    title: 'DlqRecord',
    description: 'A dead-letter record on the decisions and intents DLQ topics (key: the original key, else <partition>:<offset>).',
    schema: DlqRecordSchema,
    topics: ['decisionsDlq', 'intentsDlq'],
    writtenBy: 'the authorizer, the dispatcher',
    io: 'output',
    notExpressed: RFC3339_NOTE,
  },
];

/** One message's JSON Schema, with its `$id` and `title` first. */
export function renderSchema(m: MessageSchema): JsonSchema {
  const generated = z.toJSONSchema(m.schema, { target: 'draft-2020-12', io: m.io, unrepresentable: 'throw' }) as JsonSchema;
  const { $schema, ...rest } = generated;
  const out: JsonSchema = {
    $schema,
    $id: `${SCHEMA_ID_BASE}${m.file}`,
    title: m.title,
    description: m.description,
    ...(m.notExpressed ? { $comment: m.notExpressed } : {}),
    ...rest,
  };
  m.amend?.(out);
  return out;
}

/** File name -> file text, exactly as checked in. */
export function renderSchemaFiles(): Map<string, string> {
  return new Map(MESSAGE_SCHEMAS.map((m) => [m.file, `${JSON.stringify(renderSchema(m), null, 2)}\n`]));
}

export const README_FILE = 'README.md';

/** schemas/README.md: the table of every schema, from the same list (so it cannot miss one). */
export function renderSchemasReadme(): string {
  const rows = MESSAGE_SCHEMAS.map((m) => `| \`${m.file}\` | ${m.topics.map((t) => `\`${DEFAULT_TOPICS[t]}\``).join(', ')} | ${m.writtenBy} |`);
  return `# JSON Schemas of the messages

<!-- Generated by \`${REGENERATE_COMMAND}\` from scripts/message-schemas/message-schemas.ts; do not edit. -->

One JSON Schema (draft 2020-12) per message on a topic, generated from the zod contracts in
\`libs/contracts\` by \`${REGENERATE_COMMAND}\` (source: \`scripts/message-schemas/\`). Do not edit these
files: change the contract and regenerate; a unit spec fails while they differ.

| File | Topic | Written by |
|---|---|---|
${rows.join('\n')}

Each \`$id\` (\`${SCHEMA_ID_BASE}<file>\`) names the schema; nothing is served there.
Rules a JSON Schema cannot state are listed in each file's \`$comment\` and in
[../docs/wire-contract.md](../docs/wire-contract.md). The topics, keys, producers and consumers
are in [../docs/asyncapi.yaml](../docs/asyncapi.yaml).
`;
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import {
  ActionDecisionSchema,
  buildDlqRecord,
  DlqRecordSchema,
  IntentMessageSchema,
  JournalCheckpointSchema,
  JournalEntrySchema,
} from '@arvis/contracts';
import { generateEd25519KeyPair } from '@arvis/crypto';
import { mintIdentityToken } from '@arvis/decision-client';
import { MESSAGE_SCHEMAS, README_FILE, REGENERATE_COMMAND, renderSchemaFiles, renderSchemasReadme, SCHEMAS_DIR } from './message-schemas';

const dir = join(__dirname, '..', '..', SCHEMAS_DIR);
const checkedIn = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
const h = (c: string) => c.repeat(64);

describe('schemas/ (JSON Schema 2020-12 of every message)', () => {
  it('are exactly what the generator makes from the zod contracts now', () => {
    const expected = renderSchemaFiles();
    const onDisk = readdirSync(dir).filter((f) => f.endsWith('.schema.json')).sort();
    const stale = [...expected].filter(([name, text]) => !onDisk.includes(name) || readFileSync(join(dir, name), 'utf8') !== text).map(([n]) => n);
    const extra = onDisk.filter((f) => !expected.has(f));
    const drift = [...stale, ...extra];
    if (drift.length) throw new Error(`schemas/ is out of date (${drift.join(', ')}); regenerate with: ${REGENERATE_COMMAND}`);
    expect(onDisk).toEqual([...expected.keys()].sort());
  });

  it('are each listed in schemas/README.md, generated from the same list', () => {
    const readme = readFileSync(join(dir, README_FILE), 'utf8');
    if (readme !== renderSchemasReadme()) throw new Error(`schemas/README.md is out of date; regenerate with: ${REGENERATE_COMMAND}`);
    expect(MESSAGE_SCHEMAS.filter((m) => !readme.includes(`| \`${m.file}\` |`)).map((m) => m.file)).toEqual([]);
  });

  describe('are usable by a JSON Schema validator (ajv, draft 2020-12, strict)', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const m of MESSAGE_SCHEMAS) ajv.addSchema(checkedIn(m.file));
    const validate = (file: string, message: unknown) => {
      const v = ajv.getSchema(`https://schemas.arvis.dev/v1/${file}`)!;
      return v(message) ? 'valid' : ajv.errorsText(v.errors);
    };

    it('accepts a real decision and refuses what intake refuses', async () => {
      const key = generateEd25519KeyPair();
      const identity = await mintIdentityToken({ issuer: 'https://idp.example', privateKeyPem: key.privateKeyPem }, { principal: 'alice', tenant: 'acme', serviceId: 'agent-1' });
      const decision = { specVersion: 1, decisionId: 'd-1', runId: 'run-1', causalId: 'c-1', tool: 'notes.append', payload: { text: 'hi' }, riskScore: 0.1, identity };
      expect(ActionDecisionSchema.safeParse(decision).success).toBe(true);
      expect(validate('action-decision.schema.json', decision)).toBe('valid');
      const refused = {
        unknownField: { ...decision, retry: { attempt: 1, chainId: 'd-0', parentCausalId: 'c-0' } },
        systemId: { ...decision, decisionId: 'arvis.retry.x.1' },
        riskAboveOne: { ...decision, riskScore: 1.5 },
        unsigned: { ...decision, identity: 'eyJhbGciOiJub25lIn0.e30.' },
        noSpecVersion: { ...decision, specVersion: 2 },
      };
      for (const [label, bad] of Object.entries(refused)) {
        expect({ label, zod: ActionDecisionSchema.safeParse(bad).success }).toEqual({ label, zod: false });
        expect({ label, ajv: validate('action-decision.schema.json', bad) }).not.toEqual({ label, ajv: 'valid' });
      }
    });

    it('accepts an intent (with retry), a journal entry and a DLQ record as the services write them', () => {
      const receipt = { receiptId: 'r-1', runId: 'run-1', causalId: 'c-1', intentSha256: h('1'), durablePosition: '42', storeFingerprint: h('2'), committedAt: '2026-11-30T14:05:09.123Z' };
      const intent = IntentMessageSchema.parse({
        specVersion: 1, intentId: 'i-1', capabilityId: 'cap-1', decisionId: 'd-1', runId: 'run-1', causalId: 'c-1', tenant: 'acme', tool: 'notes.append',
        intentCommitment: h('1'), payloadSha256: h('3'), effectContextCommitment: h('4'), idempotencyKey: `idem:${h('5')}`, catalogFingerprint: h('6'),
        receipt, retry: { attempt: 1, chainId: 'd-0', parentCausalId: 'c-0' }, signature: { keyId: 'k-1', value: 'A'.repeat(86) },
      });
      const entry = JournalEntrySchema.parse({
        specVersion: 1, kind: 'tool_result', decisionId: 'd-1', runId: 'run-1', causalId: 'c-1', tenant: 'acme', principal: 'alice', tool: 'notes.append',
        capabilityId: 'cap-1', intentCommitment: h('1'), idempotencyKey: `idem:${h('5')}`, effectBoundary: 'effect_completed', success: true,
        output: { appended: true }, latencyMs: 3, recordedAt: '2026-11-30T14:05:09.123Z', journalSeq: '7', prevHash: h('0'), hash: h('a'),
      });
      const dlq = buildDlqRecord({ sourceTopic: 'arvis.decisions', partition: 3, offset: 9n, reasonCode: 'malformed_message', detail: 'not JSON', raw: Buffer.from('{'), receivedAt: new Date(), maxRawBytes: 1024 });
      expect(DlqRecordSchema.safeParse(dlq).success).toBe(true);
      expect(validate('intent-message.schema.json', intent)).toBe('valid');
      expect(validate('journal-entry.schema.json', entry)).toBe('valid');
      expect(validate('dlq-record.schema.json', dlq)).toBe('valid');
      const checkpoint = JournalCheckpointSchema.parse({
        recordType: 'checkpoint', specVersion: 1, chain: 'main', seq: '1000', hash: h('b'), signedAt: '2026-11-30T14:05:10.000Z', signature: { keyId: 'k-1', value: 'A'.repeat(86) },
      });
      expect(validate('journal-checkpoint.schema.json', checkpoint)).toBe('valid');
      expect(validate('journal-checkpoint.schema.json', { ...checkpoint, journalSeq: '1000' })).toMatch(/additional/);
      // The schemas are not blank: a field out of place fails each one.
      expect(validate('intent-message.schema.json', { ...intent, payloadSha256: 'ABC' })).toMatch(/payloadSha256/);
      expect(validate('journal-entry.schema.json', { ...entry, journalSeq: 7 })).toMatch(/journalSeq/);
      expect(validate('dlq-record.schema.json', { ...dlq, reasonCode: 'made_up' })).toMatch(/reasonCode/);
    });
  });
});

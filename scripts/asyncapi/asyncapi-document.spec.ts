import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, fromFile, Parser, type AsyncAPIDocumentInterface } from '@asyncapi/parser';
import { DEFAULT_TOPICS } from '@arvis/contracts';
import { MESSAGE_SCHEMAS } from '../message-schemas/message-schemas';

const ROOT = join(__dirname, '..', '..');
const FILE = join(ROOT, 'docs', 'asyncapi.yaml');

describe('docs/asyncapi.yaml', () => {
  let document: AsyncAPIDocumentInterface;

  beforeAll(async () => {
    // fromFile resolves the relative $refs into schemas/ against the document's own folder.
    const { document: parsed, diagnostics } = await fromFile(new Parser(), FILE).parse();
    const problems = diagnostics.filter((d) => d.severity <= DiagnosticSeverity.Warning);
    expect(problems.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
    expect(parsed).toBeDefined();
    document = parsed!;
  }, 60_000);

  it('has a channel for every topic of libs/contracts, with a producer and a consumer', () => {
    const channels = document.channels().all();
    expect(channels.map((c) => c.address()).sort()).toEqual(Object.values(DEFAULT_TOPICS).sort());
    for (const c of channels) {
      const actions = c.operations().all().map((o) => o.action());
      expect({ topic: c.address(), send: actions.includes('send'), receive: actions.includes('receive') }).toEqual({ topic: c.address(), send: true, receive: true });
    }
  });

  it('describes every message with the JSON Schema in schemas/ (every file used)', () => {
    const text = readFileSync(FILE, 'utf8');
    const referenced = [...text.matchAll(/\$ref: '\.\.\/schemas\/([^']+)'/g)].map((m) => m[1]).sort();
    expect(referenced).toEqual(MESSAGE_SCHEMAS.map((m) => m.file).sort());
    for (const m of document.components().messages().all()) {
      // The payload is the resolved schema: it names its fields, so the $ref was followed.
      expect({ message: m.name(), fields: Object.keys(m.payload()?.properties() ?? {}).length > 3 }).toEqual({ message: m.name(), fields: true });
      expect(m.bindings().get('kafka')?.value().key).toBeDefined();
    }
  });
});

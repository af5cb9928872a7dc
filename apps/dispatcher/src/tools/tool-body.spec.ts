import type { AuthorizedEffectContext } from '@arvis/effect-context';
import { FlakyRecordTool } from './flaky-record.tool';
import { LedgerTransferTool } from './ledger-transfer.tool';
import { MailSendTool } from './mail-send.tool';
import { NotesAppendTool } from './notes-append.tool';
import type { ToolBody, ToolInvocation } from './tool-body';
import type { ToolDatabase } from './tool-database';

/** Records each statement and answers with one row, like the tools' own pool would. */
function fakeDatabase() {
  const statements: { sql: string; params: unknown[] }[] = [];
  const db = {
    query: async (sql: string, params: unknown[]) => {
      statements.push({ sql, params });
      return { rows: [{ id: '1', attempts: 5 }] };
    },
  };
  return { db: db as unknown as ToolDatabase, statements };
}

const invocation: ToolInvocation = {
  payload: { text: 'x', key: 'k', failTimes: 0, from: 'a', to: 'b', amountMinor: 1, currency: 'EUR', reference: 'r', subject: 's', body: 'b' },
  effectContext: { tenant: 'acme', principal: 'alice' } as unknown as AuthorizedEffectContext,
  idempotencyKey: 'idem:1',
  signal: new AbortController().signal,
  capabilityId: 'cap-1',
};

// The chaos suite (ADR 0019) tells an unknown effect that may have acted from one that cannot
// have, by this marker: it must be the body's first statement, committed on its own.
describe('tool bodies write their start marker first', () => {
  it.each<[string, (db: ToolDatabase) => ToolBody]>([
    ['notes.append', (db) => new NotesAppendTool(db)],
    ['ledger.transfer', (db) => new LedgerTransferTool(db)],
    ['flaky.record', (db) => new FlakyRecordTool(db)],
    ['mail.send', (db) => new MailSendTool(db)],
  ])('%s inserts into tool_body_starts before anything else', async (name, make) => {
    const { db, statements } = fakeDatabase();
    await make(db).execute({ ...invocation, payload: { ...invocation.payload, to: name === 'mail.send' ? 'a@b.c' : 'b' } });
    expect(statements[0]).toEqual({ sql: 'INSERT INTO tool_body_starts (capability_id, tool) VALUES ($1, $2)', params: ['cap-1', name] });
    expect(statements.length).toBeGreaterThan(1);
  });
});

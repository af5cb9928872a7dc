import type { ToolDatabase } from '@arvis/tool-sdk';
import { RowWriter, rowWriterFor, type EffectTable } from './row-writer';

type Note = { capabilityId: string; idempotencyKey: string; text: string };
const NOTES: EffectTable<Note> = { name: 'notes', columns: { capability_id: 'capabilityId', idempotency_key: 'idempotencyKey', text: 'text' } };
const MAIL: EffectTable<Note> = { name: 'mail_sink', columns: { capability_id: 'capabilityId', idempotency_key: 'idempotencyKey', body: 'text' } };
const row = (capabilityId: string): Note => ({ capabilityId, idempotencyKey: `idem:${capabilityId}`, text: `x${capabilityId}` });

/** A database that answers every insert with a row per capability id, in reverse order. */
function recordingDb(calls: { sql: string; params: unknown[] }[]): ToolDatabase {
  return {
    query: async (sql: string, params: unknown[]) => {
      calls.push({ sql, params });
      const caps = params[0] as string[];
      return { rows: caps.map((c, i) => ({ id: String(100 + i), capability_id: c })).reverse(), rowCount: caps.length };
    },
  } as unknown as ToolDatabase;
}

describe('demo tool bodies started together', () => {
  it('insert their rows with one statement and each gets its own row id, whatever order RETURNING gives', async () => {
    const calls: { sql: string; params: unknown[] }[] = [];
    const w = new RowWriter(recordingDb(calls), NOTES);
    await expect(Promise.all(['a', 'b', 'c'].map((c) => w.insert(row(c))))).resolves.toEqual(['100', '101', '102']);
    expect(calls).toHaveLength(1);
    expect(calls[0].sql).toMatch(/INSERT INTO notes \(capability_id, idempotency_key, text\)/);
    expect(calls[0].params).toEqual([
      ['a', 'b', 'c'],
      ['idem:a', 'idem:b', 'idem:c'],
      ['xa', 'xb', 'xc'],
    ]);
  });

  it('all fail when their statement fails, and a later row gets a statement of its own', async () => {
    let fail = true;
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        if (fail) throw new Error('deadlock detected');
        return { rows: (params[0] as string[]).map((c) => ({ id: '1', capability_id: c })), rowCount: 1 };
      },
    } as unknown as ToolDatabase;
    const w = new RowWriter(db, NOTES);
    const outcomes = await Promise.allSettled([w.insert(row('a')), w.insert(row('b'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(w.insert(row('c'))).resolves.toBe('1');
  });

  it('fails a body whose row the statement did not return, and only that one', async () => {
    const db = { query: async () => ({ rows: [{ id: '7', capability_id: 'a' }], rowCount: 1 }) } as unknown as ToolDatabase;
    const outcomes = await Promise.allSettled([new RowWriter(db, NOTES)].flatMap((w) => [w.insert(row('a')), w.insert(row('b'))]));
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: '7' });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: 'notes insert returned no row for b' } });
  });

  it('share a statement per pool and table: notes and mail started together are two statements, not one per body', async () => {
    const calls: { sql: string; params: unknown[] }[] = [];
    const db = recordingDb(calls);
    await Promise.all([rowWriterFor(db, NOTES).insert(row('a')), rowWriterFor(db, MAIL).insert(row('b')), rowWriterFor(db, NOTES).insert(row('c')), rowWriterFor(db, MAIL).insert(row('d'))]);
    expect(calls.map((c) => [c.sql.match(/INSERT INTO (\w+)/)![1], c.params[0]])).toEqual([
      ['notes', ['a', 'c']],
      ['mail_sink', ['b', 'd']],
    ]);
  });

  it('refuses a table not keyed by capability_id', () => {
    expect(() => new RowWriter(recordingDb([]), { name: 't', columns: { text: 'text' } } as EffectTable<Note>)).toThrow('keyed by capability_id');
  });
});

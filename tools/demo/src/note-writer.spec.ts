import type { ToolDatabase } from '@arvis/tool-sdk';
import { NoteWriter, type NoteRow } from './note-writer';

const row = (capabilityId: string): NoteRow => ({ capabilityId, idempotencyKey: `idem:${capabilityId}`, tenant: 't', principal: 'p', text: 'x' });

describe('notes.append bodies started together', () => {
  it('insert their notes with one statement and each gets its own row id, whatever order RETURNING gives', async () => {
    const calls: unknown[][] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        calls.push(params);
        const caps = params[0] as string[];
        return { rows: caps.map((c, i) => ({ id: String(100 + i), capability_id: c })).reverse(), rowCount: caps.length };
      },
    } as unknown as ToolDatabase;
    const w = new NoteWriter(db);
    await expect(Promise.all(['a', 'b', 'c'].map((c) => w.insert(row(c))))).resolves.toEqual(['100', '101', '102']);
    expect(calls).toHaveLength(1);
    expect(calls[0][0]).toEqual(['a', 'b', 'c']);
  });

  it('all fail when their statement fails, and a later note gets a statement of its own', async () => {
    let fail = true;
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        if (fail) throw new Error('deadlock detected');
        return { rows: (params[0] as string[]).map((c) => ({ id: '1', capability_id: c })), rowCount: 1 };
      },
    } as unknown as ToolDatabase;
    const w = new NoteWriter(db);
    const outcomes = await Promise.allSettled([w.insert(row('a')), w.insert(row('b'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(w.insert(row('c'))).resolves.toBe('1');
  });
});

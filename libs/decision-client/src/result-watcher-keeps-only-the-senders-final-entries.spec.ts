import type { JournalEntry } from '@arvis/contracts';
import { ResultWatcher } from './result-watcher';

// A result watcher keeps only its sender's final entries (tenant, principal and id), at most
// maxKept of them; everything else on the topic is counted and dropped (bounded memory).
const record = (over: Partial<JournalEntry> & { recordType?: string }) =>
  Buffer.from(JSON.stringify({ journalSeq: '1', kind: 'tool_result', tenant: 'acme', principal: 'alice', decisionId: 'd1', ...over }));

describe('ResultWatcher', () => {
  // Never started: no connection is made; records are handed to it as the consumer would.
  const feed = (w: ResultWatcher, value: Buffer | null) => (w as unknown as { onRecord(v: Buffer | null): void }).onRecord(value);

  it("takes its sender's final entry of a decision, not another tenant's or principal's with the same id, nor a non-final one", async () => {
    const w = new ResultWatcher(['127.0.0.1:1'], 'arvis.journal', { tenant: 'acme', principal: 'alice' });
    const waited = w.waitFor('d1', 1000);
    feed(w, record({ tenant: 'globex' }));
    feed(w, record({ principal: 'bob' }));
    feed(w, record({ kind: 'confirmation_pending' }));
    feed(w, record({ recordType: 'checkpoint' }));
    feed(w, Buffer.from('not json'));
    expect(w.result('d1')).toBeUndefined();
    feed(w, record({ journalSeq: '7' }));
    feed(w, record({ journalSeq: '7' })); // a copy
    expect((await waited)?.journalSeq).toBe('7');
    expect(w.stats).toEqual({ read: 7, kept: 1, skipped: 5, unreadable: 1, dropped: 0 });
    expect(await w.waitFor('d2', 20)).toBeUndefined();
  });

  it('keeps at most maxKept entries, the newest', () => {
    const w = new ResultWatcher(['127.0.0.1:1'], 'arvis.journal', { tenant: 'acme', principal: 'alice' }, { maxKept: 3 });
    for (let i = 0; i < 10; i++) feed(w, record({ decisionId: `d${i}`, journalSeq: String(i) }));
    expect(w.stats.dropped).toBe(7);
    expect(['d6', 'd7', 'd8', 'd9'].map((d) => w.result(d)?.journalSeq)).toEqual([undefined, '7', '8', '9']);
  });
});

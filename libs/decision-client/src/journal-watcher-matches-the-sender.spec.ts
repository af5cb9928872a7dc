import { createHash } from 'node:crypto';
import { DEFAULT_TOPICS, type DlqRecord, type JournalEntry } from '@arvis/contracts';
import { JournalWatcher } from './decision-client';

// Ids are unique only within a tenant (ADR 0061): a watcher given its sender takes only its own
// decisions' entries and dead letters, never another tenant's with the same id.
const entry = (journalSeq: string, tenant: string, principal: string, kind = 'tool_result') =>
  ({ journalSeq, decisionId: 'run-1:d1', kind, tenant, principal }) as unknown as JournalEntry;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('JournalWatcher', () => {
  // Never started: no connection is made; the maps are filled as the consumer would.
  const watcher = new JournalWatcher(['127.0.0.1:1'], DEFAULT_TOPICS);
  watcher.entries.set('1', entry('1', 'globex', 'mallory'));
  watcher.entries.set('2', entry('2', 'acme', 'alice'));
  watcher.entries.set('3', entry('3', 'acme', '__unauthenticated__', 'authorization_refusal'));
  watcher.entries.set('4', entry('4', 'acme', 'bob'));
  watcher.deadLetters.push(
    { decisionId: 'run-1:d1', identitySha256: sha256('globex-token'), reasonCode: 'identity_invalid' } as DlqRecord,
    { decisionId: 'run-1:d1', identitySha256: sha256('acme-token'), reasonCode: 'identity_invalid' } as DlqRecord,
  );

  it("takes the sender's final entries (and its refusals without a current identity), not another tenant's or principal's", () => {
    const seqs = (m: Map<string, JournalEntry[]>) => (m.get('run-1:d1') ?? []).map((e) => e.journalSeq);
    expect(seqs(watcher.finalEntriesFor(['run-1:d1'], { tenant: 'acme', principal: 'alice' }))).toEqual(['2', '3']);
    expect(seqs(watcher.finalEntriesFor(['run-1:d1'], { tenant: 'globex', principal: 'mallory' }))).toEqual(['1']);
    // Without a sender, by id alone, as before.
    expect(seqs(watcher.finalEntriesFor(['run-1:d1']))).toEqual(['1', '2', '3', '4']);
  });

  it('takes the dead letter of the token it was sent with', () => {
    expect(watcher.deadLettersFor(['run-1:d1'], ['acme-token']).get('run-1:d1')?.identitySha256).toBe(sha256('acme-token'));
    expect(watcher.deadLettersFor(['run-1:d1'], ['other-token']).size).toBe(0);
  });
});

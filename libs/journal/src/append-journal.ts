import { canonicalJson, chainHash } from '@arvis/effect-context';
import { isFinalKind, SPEC_VERSION, type JournalEntry, type JournalEntryDraft } from '@arvis/contracts';
import type { Tx } from '@arvis/persistence';
import { enqueueOutbox } from '@arvis/outbox';

/**
 * Appends entries to the global hash chain and copies them to the journal topic through the
 * outbox, inside the caller's transaction. The chain head row is locked (FOR UPDATE) so
 * journalSeq and prevHash are assigned in one order across every writer of both apps; callers
 * append last in their transaction to hold that lock briefly.
 */
export async function appendJournal(tx: Tx, drafts: JournalEntryDraft[], journalTopic: string): Promise<JournalEntry[]> {
  if (drafts.length === 0) return [];
  const head = await tx.$queryRaw<{ last_seq: bigint; last_hash: string }[]>`
    SELECT last_seq, last_hash FROM journal_head WHERE id = 1 FOR UPDATE`;
  if (head.length !== 1) throw new Error('journal_head row missing: run the migrations');
  let seq = BigInt(head[0].last_seq);
  let prevHash = head[0].last_hash;
  const entries: JournalEntry[] = [];
  const rows = [];
  for (const draft of drafts) {
    seq += 1n;
    const unhashed = { ...draft, specVersion: SPEC_VERSION, journalSeq: seq.toString(), prevHash };
    const hash = chainHash(prevHash, unhashed);
    const entry = { ...unhashed, hash } as JournalEntry;
    entries.push(entry);
    rows.push({
      journalSeq: seq,
      kind: entry.kind,
      decisionId: entry.decisionId,
      runId: entry.runId,
      tenant: entry.tenant,
      tool: entry.tool,
      effectBoundary: entry.effectBoundary,
      success: entry.success,
      reasonCode: entry.reasonCode ?? null,
      finalDecisionId: isFinalKind(entry.kind) ? entry.decisionId : null,
      resultCapabilityId: entry.kind === 'tool_result' ? (entry.capabilityId ?? null) : null,
      entry: canonicalJson(unhashed),
      prevHash,
      hash,
      recordedAt: new Date(entry.recordedAt),
    });
    prevHash = hash;
  }
  await tx.journalEntry.createMany({ data: rows });
  const moved = await tx.$executeRaw`
    UPDATE journal_head SET last_seq = ${seq}, last_hash = ${prevHash} WHERE id = 1`;
  if (moved !== 1) throw new Error('journal head did not move');
  await enqueueOutbox(
    tx,
    entries.map((e) => ({ topic: journalTopic, key: e.runId, payload: JSON.stringify(e) })),
  );
  return entries;
}

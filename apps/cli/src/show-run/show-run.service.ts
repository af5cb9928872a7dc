import type { Pool } from 'pg';
import { columns } from '../output';
import { summarizeRun, type InboxRow, type RunCapabilityRow, type RunJournalRow, type RunView } from './summarize-run';

/** A run as the database records it: decisions, their journal entries and capabilities. */
export class ShowRunService {
  constructor(private readonly db: Pool) {}

  /** Null when the run is unknown (no inbox row, no journal entry). */
  async show(runId: string): Promise<RunView | null> {
    const client = await this.db.connect();
    try {
      // One snapshot, so a final entry and its capability are read as of the same moment.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const inbox = (await client.query<InboxRow>('SELECT decision_id, tenant, causal_id, tool, status FROM decision_inbox WHERE run_id = $1 ORDER BY received_at, decision_id, tenant', [runId])).rows;
      const journal = (
        await client.query<RunJournalRow>(
          `SELECT journal_seq::text AS journal_seq, kind, decision_id, tenant, tool, effect_boundary, success, reason_code
           FROM journal WHERE run_id = $1 ORDER BY journal.chain, journal.journal_seq`,
          [runId],
        )
      ).rows;
      const decisionIds = [...new Set([...inbox.map((i) => i.decision_id), ...journal.map((j) => j.decision_id)])];
      // Through the intents' (decision, tenant) key: capabilities keep no index by decision (ADR 0048).
      const capabilities = (
        await client.query<RunCapabilityRow>(
          `SELECT c.decision_id, i.tenant, c.capability_id, c.state, c.consumed_by, c.revoked_reason
           FROM intents i JOIN capabilities c ON c.capability_id = i.capability_id WHERE i.decision_id = ANY($1::text[])`,
          [decisionIds],
        )
      ).rows;
      await client.query('COMMIT');
      if (inbox.length === 0 && journal.length === 0) return null;
      return summarizeRun(runId, inbox, journal, capabilities);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }
}

export function renderRun(v: RunView): string[] {
  const c = v.counts;
  const lines = [`run ${v.runId}: ${c.decisions} decisions, ${c.final} with a final entry, ${c.awaitingFinal} awaiting one (${c.entries} journal entries)`];
  // A run id several tenants used: each decision is named with its tenant (ADR 0061).
  const tenants = new Set(v.decisions.map((d) => d.tenant)).size > 1;
  const named = (d: (typeof v.decisions)[number]) => (tenants ? `${d.decisionId} (tenant ${d.tenant})` : d.decisionId);
  const rows = v.decisions.map((d) => {
    const f = d.final;
    const final = f ? `#${f.journalSeq} ${f.kind} ${f.effectBoundary}${f.reasonCode ? ` (${f.reasonCode})` : ''}` : 'no final entry';
    const pending = d.pending.length ? `pending: ${d.pending.map((p) => `#${p.journalSeq} ${p.kind}${p.reasonCode ? ` (${p.reasonCode})` : ''}`).join(', ')}` : '';
    const cap = d.capability ? `capability ${d.capability.state}${d.capability.revokedReason ? ` (${d.capability.revokedReason})` : ''}` : 'no capability';
    return [named(d), d.tool, final, cap, pending];
  });
  lines.push(...columns(rows).map((l) => `  ${l}`));
  for (const d of v.decisions) for (const p of d.problems) lines.push(`problem: ${named(d)}: ${p}`);
  return lines;
}

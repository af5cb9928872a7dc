import type { Pool, PoolClient } from 'pg';
import { FINAL_JOURNAL_KINDS, type JournalKind } from '@arvis/contracts';
import { GENESIS_HASH } from '@arvis/crypto';
import { columns, compact } from '../output';
import { checkRow, JOURNAL_ROW_COLUMNS, type JournalRow, type StoredEntry } from '../verify-journal/journal-row';
import { readPrunedThroughByChain } from '../verify-journal/retention-horizon';
import { checkConfirmationOrder } from './confirmation-order';
import { checkResolutionOrder } from './resolution-order';
import { checkToolResult, type CapabilityRow, type IntentRow } from './replay-checks';

export interface ReplayedResult {
  journalSeq: string;
  decisionId: string;
  kind: string;
  effectBoundary: string;
  success: boolean;
  reasonCode?: string;
  output?: unknown;
}

export interface ReplayMismatch {
  journalSeq: string;
  decisionId: string;
  message: string;
}

export interface ReplayReport {
  runId: string;
  known: boolean;
  matches: boolean;
  entriesReplayed: number;
  results: ReplayedResult[];
  mismatches: ReplayMismatch[];
  /** tool_result entries whose intent and capability retention pruned: hashes checked, commitments not (ADR 0041). */
  pruned: string[];
}

/**
 * docs/architecture.md, step 15: rebuilds a run's results from stored material only. It reads (never writes)
 * the journal, intents and capabilities, recomputes each hash and commitment, and never
 * activates a capability or calls a tool: nothing here can reach a tool.
 */
export class ReplayRunService {
  constructor(private readonly db: Pool) {}

  async replay(runId: string): Promise<ReplayReport> {
    const client = await this.db.connect();
    try {
      // One snapshot, so a row appended mid-replay cannot look like a broken link.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const rows = (await client.query<JournalRow>(`SELECT ${JOURNAL_ROW_COLUMNS} FROM journal WHERE run_id = $1 ORDER BY journal.chain, journal.journal_seq`, [runId])).rows;
      const inInbox = (await client.query('SELECT 1 FROM decision_inbox WHERE run_id = $1 LIMIT 1', [runId])).rowCount! > 0;
      if (rows.length === 0) {
        await client.query('COMMIT');
        // An unknown run matches nothing: a script reading only `matches` must not take it for a pass.
        return { runId, known: inInbox, matches: inInbox, entriesReplayed: 0, results: [], mismatches: [], pruned: [] };
      }

      const { predecessors, intents, capabilities, prunedThrough } = await storedMaterial(client, rows);
      await client.query('COMMIT');

      const pruned: string[] = [];
      const results: ReplayedResult[] = [];
      const mismatches: ReplayMismatch[] = [];
      const hashed: StoredEntry[] = [];
      for (const row of rows) {
        const miss = (message: string) => mismatches.push({ journalSeq: row.journal_seq, decisionId: row.decision_id, message });
        const checked = checkRow(row);
        if (!checked.ok) miss(`journal_seq ${row.journal_seq}: ${checked.detail}`);
        const prevSeq = (BigInt(row.journal_seq) - 1n).toString();
        const expectedPrev = prevSeq === '0' ? GENESIS_HASH : predecessors.get(`${row.chain}@${prevSeq}`);
        if (expectedPrev === undefined) miss(`journal_seq ${prevSeq}, before ${row.journal_seq}, is missing (row deleted)`);
        else if (row.prev_hash !== expectedPrev) miss(`prev_hash of ${row.journal_seq} is not the hash of ${prevSeq} (reordered or changed)`);
        // Results are rebuilt from the hashed entry, not from the derived columns.
        const entry = checked.entry;
        if (!entry) continue;
        hashed.push(entry);
        if (entry.kind === 'tool_result') {
          const capId = typeof entry.capabilityId === 'string' ? entry.capabilityId : '';
          const gone = !intents.has(capId) && !capabilities.has(capId) && BigInt(row.journal_seq) <= (prunedThrough.get(row.chain) ?? 0n);
          if (gone) pruned.push(row.journal_seq);
          else for (const m of checkToolResult(entry, intents.get(capId), capabilities.get(capId))) miss(`journal_seq ${row.journal_seq}: ${m}`);
        }
        if (FINAL_JOURNAL_KINDS.has(entry.kind as JournalKind)) results.push(resultOf(row, entry));
      }
      mismatches.push(...checkConfirmationOrder(hashed), ...checkResolutionOrder(hashed));
      return { runId, known: true, matches: mismatches.length === 0, entriesReplayed: rows.length, results, mismatches, pruned };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }
}

/** What the run's entries are checked against: each row's global predecessor, intents, capabilities, the retention horizon. */
async function storedMaterial(client: PoolClient, rows: JournalRow[]) {
  // The run's rows interleave with other runs' rows; each is linked to its predecessor in its own
  // chain (ADR 0062: a run's entries are in one chain, but one run id of two tenants may be in two).
  const before = rows.filter((r) => r.journal_seq !== '1');
  const predecessors = new Map(
    (
      await client.query<{ chain: string; journal_seq: string; hash: string }>(
        `SELECT j.chain, j.journal_seq::text AS journal_seq, j.hash FROM journal j
         JOIN unnest($1::text[], $2::bigint[]) AS p(chain, seq) ON j.chain = p.chain AND j.journal_seq = p.seq`,
        [before.map((r) => r.chain), before.map((r) => (BigInt(r.journal_seq) - 1n).toString())],
      )
    ).rows.map((r) => [`${r.chain}@${r.journal_seq}`, r.hash]),
  );
  const capabilityIds = rows.filter((r) => r.kind === 'tool_result' && r.result_capability_id).map((r) => r.result_capability_id!);
  const intents = new Map(
    (await client.query<IntentRow>(
      `SELECT intent_id, decision_id, capability_id, run_id, causal_id, tenant, principal, tool, process_id, payload_canonical,
              payload_sha256, effect_context, effect_context_commitment, idempotency_key, catalog_fingerprint, intent_commitment
       FROM intents WHERE capability_id = ANY($1::text[])`,
      [capabilityIds],
    )).rows.map((i) => [i.capability_id, i]),
  );
  const capabilities = new Map(
    (await client.query<CapabilityRow>('SELECT capability_id, decision_id, intent_id, state, revoked_reason FROM capabilities WHERE capability_id = ANY($1::text[])', [capabilityIds])).rows.map(
      (c) => [c.capability_id, c],
    ),
  );
  return { predecessors, intents, capabilities, prunedThrough: await readPrunedThroughByChain(client) };
}

function resultOf(row: JournalRow, e: Record<string, unknown>): ReplayedResult {
  return {
    journalSeq: row.journal_seq,
    decisionId: String(e.decisionId),
    kind: String(e.kind),
    effectBoundary: String(e.effectBoundary),
    success: e.success === true,
    ...(typeof e.reasonCode === 'string' ? { reasonCode: e.reasonCode } : {}),
    ...(e.output !== undefined ? { output: e.output } : {}),
  };
}

export function renderReplay(r: ReplayReport): string[] {
  const lines = [`run ${r.runId}: ${r.entriesReplayed} journal entries replayed, ${r.results.length} results`];
  lines.push(
    ...columns(
      r.results.map((x) => [`#${x.journalSeq}`, x.decisionId, x.effectBoundary, x.success ? 'success' : 'failure', x.reasonCode ? `reason=${x.reasonCode}` : x.output !== undefined ? `output=${compact(x.output)}` : '']),
    ).map((l) => `  ${l}`),
  );
  if (r.pruned.length > 0) {
    lines.push(`${r.pruned.length} tool_result entries (journal_seq ${r.pruned.join(', ')}) have their intent and capability pruned by retention: chain checked, commitments not recomputed`);
  }
  if (r.matches) lines.push('replay matches the journal');
  else for (const m of r.mismatches) lines.push(`mismatch: ${m.message}`);
  return lines;
}

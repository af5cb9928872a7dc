import type { Pool, PoolClient } from 'pg';
import { ChainWalker, type ChainSummary, type JournalHeadRow } from './chain-walker';
import { MAIN_JOURNAL_CHAIN } from '@arvis/contracts';
import { chainsOf, readPrunedThrough } from './retention-horizon';
import { FINAL_KINDS, JOURNAL_ROW_COLUMNS, type JournalRow } from './journal-row';

export interface BijectionFinding {
  check: 'capability_without_result' | 'capability_without_activation' | 'result_without_intent' | 'decision_with_several_finals';
  message: string;
}

/** One chain's walk (ADR 0062): its head row and what the walk found. */
export interface ChainReport {
  chain: string;
  head: JournalHeadRow | null;
  summary: ChainSummary;
}

export interface VerifyReport {
  intact: boolean;
  firstBreak: string | null;
  /** The main chain's head and walk, as before the journal had several chains. */
  head: JournalHeadRow | null;
  chain: ChainSummary;
  /** Every chain, main first, then by shard; a chain with rows but no head row last. */
  chains: ChainReport[];
  /** Retention (ADR 0041): decisions final at or below this seq may have lost intent and capability. */
  retention: { materialThrough: string; resultsWithPrunedIntent: number };
  bijections: {
    consumedCapabilities: number;
    toolResults: number;
    findings: BijectionFinding[];
    /** Not breaks: effects still running, decisions still without a final entry. */
    notes: string[];
  };
}

const LIST_LIMIT = 100;
/** An entry's name in findings: its seq on the main chain, `<chain>@<seq>` on another (ADR 0062). */
const SEQ_NAME = `CASE WHEN j.chain = '${MAIN_JOURNAL_CHAIN}' THEN j.journal_seq::text ELSE j.chain || '@' || j.journal_seq::text END`;

/**
 * Verifies the whole journal from the database alone. Everything is read inside one
 * REPEATABLE READ, READ ONLY transaction: the rows, the head and the bijection counts come from
 * one snapshot, so appends that commit while the walk runs cannot look like a truncation.
 */
export class VerifyJournalService {
  constructor(
    private readonly db: Pool,
    private readonly batchSize = 1000,
  ) {}

  async verify(): Promise<VerifyReport> {
    const client = await this.db.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const chains: ChainReport[] = [];
      for (const chain of await chainsOf(client)) chains.push(await this.walk(client, chain));
      const main = chains.find((c) => c.chain === MAIN_JOURNAL_CHAIN) ?? chains[0];
      const chainFindings = chains.flatMap((c) => c.summary.findings);
      const retention = await this.retention(client);
      const bijections = await this.bijections(client);
      await client.query('COMMIT');
      const firstBreak = chainFindings[0]?.message ?? bijections.findings[0]?.message ?? null;
      return {
        intact: chainFindings.length === 0 && bijections.findings.length === 0,
        firstBreak,
        head: main.head,
        chain: main.summary,
        chains,
        retention,
        bijections,
      };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  /**
   * One chain, walked in journal_seq order with keyset pagination (memory stays flat however long
   * the journal is) and compared with its head row. Findings of a chain other than main name it.
   */
  private async walk(client: PoolClient, chain: string): Promise<ChainReport> {
    const walker = new ChainWalker();
    for (let after = '0'; ; ) {
      const { rows } = await client.query<JournalRow>(
        `SELECT ${JOURNAL_ROW_COLUMNS} FROM journal WHERE chain = $1 AND journal_seq > $2::bigint ORDER BY journal.journal_seq LIMIT $3`,
        [chain, after, this.batchSize],
      );
      for (const row of rows) walker.push(row);
      if (rows.length < this.batchSize) break;
      after = rows[rows.length - 1].journal_seq;
    }
    const head = (await client.query<JournalHeadRow>('SELECT last_seq::text AS last_seq, last_hash FROM journal_head WHERE chain = $1', [chain])).rows[0];
    const summary = walker.finish(head);
    if (chain !== MAIN_JOURNAL_CHAIN) summary.findings.forEach((f) => (f.message = `chain ${chain}: ${f.message}`));
    return { chain, head: head ?? null, summary };
  }

  /**
   * How far retention reached, and how many tool_result entries there have neither intent nor
   * capability left: pruned, not deleted by a tamperer (the horizon moves only with the pruner's
   * own deletions). The journal itself is never pruned, so the chain walk is unchanged.
   */
  private async retention(client: PoolClient): Promise<VerifyReport['retention']> {
    const through = await readPrunedThrough(client);
    const pruned = (
      await client.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM journal j
         WHERE j.kind = 'tool_result' AND j.journal_seq <= coalesce((SELECT h.material_through FROM retention_horizon h WHERE h.chain = j.chain), 0)
           AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.capability_id = j.result_capability_id)
           AND NOT EXISTS (SELECT 1 FROM capabilities c WHERE c.capability_id = j.result_capability_id)`,
      )
    ).rows[0].n;
    return { materialThrough: through, resultsWithPrunedIntent: Number(pruned) };
  }

  /** Set checks done by the database (joins over indexed columns), never by loading tables. */
  private async bijections(client: PoolClient): Promise<VerifyReport['bijections']> {
    const findings: BijectionFinding[] = [];
    const notes: string[] = [];

    const counts = (
      await client.query<{ consumed: string; results: string }>(
        `SELECT (SELECT count(*) FROM capabilities WHERE state = 'consumed')::text AS consumed,
                (SELECT count(*) FROM journal WHERE kind = 'tool_result')::text AS results`,
      )
    ).rows[0];

    await this.capabilitiesWithoutResult(client, findings, notes);
    await this.capabilitiesWithoutActivation(client, findings);
    await this.resultsWithoutIntent(client, findings);
    await this.decisionsWithSeveralFinals(client, findings);
    await this.openDecisions(client, notes);

    return { consumedCapabilities: Number(counts.consumed), toolResults: Number(counts.results), findings, notes };
  }

  private async capabilitiesWithoutResult(client: PoolClient, findings: BijectionFinding[], notes: string[]): Promise<void> {
    // Every consumed capability has exactly one tool_result. An effect still claimed, started or
    // waiting for the holder of its idempotency key has not reported yet: in flight, not a break.
    const unmatched = await client.query<{ capability_id: string; decision_id: string; results: number; effect_state: string | null }>(
      `SELECT c.capability_id, c.decision_id, count(j.journal_seq)::int AS results, e.state AS effect_state
       FROM capabilities c
       LEFT JOIN journal j ON j.result_capability_id = c.capability_id AND j.kind = 'tool_result'
       LEFT JOIN effects e ON e.capability_id = c.capability_id
       WHERE c.state = 'consumed'
       GROUP BY c.capability_id, c.decision_id, e.state
       HAVING count(j.journal_seq) <> 1
       ORDER BY c.decision_id
       LIMIT $1`,
      [LIST_LIMIT],
    );
    const IN_FLIGHT = new Set(['effect_pending', 'effect_started', 'effect_waiting']);
    for (const r of unmatched.rows) {
      if (r.results === 0 && IN_FLIGHT.has(r.effect_state ?? '')) {
        notes.push(`capability ${r.capability_id} (decision ${r.decision_id}) is in flight: consumed, no result yet`);
      } else {
        findings.push({
          check: 'capability_without_result',
          message: `consumed capability ${r.capability_id} (decision ${r.decision_id}) has ${r.results} tool_result entries, expected 1`,
        });
      }
    }
  }

  private async capabilitiesWithoutActivation(client: PoolClient, findings: BijectionFinding[]): Promise<void> {
    // Activation is the consuming UPDATE binding the intent's receipt (ADR 0050; no 'activated'
    // state is committed): a consumed capability bound to another receipt, or to none, or
    // without an activation time, was not activated by a dispatcher.
    const unbound = await client.query<{ capability_id: string; decision_id: string; bound: string | null }>(
      `SELECT c.capability_id, c.decision_id, c.bound_receipt_id AS bound
       FROM capabilities c JOIN intents i ON i.capability_id = c.capability_id
       WHERE c.state = 'consumed' AND (c.bound_receipt_id IS DISTINCT FROM i.receipt_id OR c.activated_at IS NULL)
       ORDER BY c.decision_id
       LIMIT $1`,
      [LIST_LIMIT],
    );
    for (const r of unbound.rows) {
      const why = r.bound === null ? 'is bound to no receipt' : `is not bound to its intent's receipt, or has no activation time`;
      findings.push({ check: 'capability_without_activation', message: `consumed capability ${r.capability_id} (decision ${r.decision_id}) ${why}` });
    }
  }

  private async resultsWithoutIntent(client: PoolClient, findings: BijectionFinding[]): Promise<void> {
    // Every tool_result names a consumed capability that has a stored intent, unless retention
    // pruned both (at or below its horizon); a capability left without its intent is still a break.
    // A revoked capability is consistent only with the refusal its revocation journals: the same
    // reason code, nothing started, no effect row (activation failed, catalog diverged, intent
    // abandoned). A result that says a tool ran for a capability never consumed is a break.
    const orphans = await client.query<{ journal_seq: string; decision_id: string; capability_id: string | null; intent_id: string | null; state: string | null }>(
      `SELECT ${SEQ_NAME} AS journal_seq, j.decision_id, j.result_capability_id AS capability_id, i.intent_id, c.state
       FROM journal j
       LEFT JOIN intents i ON i.capability_id = j.result_capability_id
       LEFT JOIN capabilities c ON c.capability_id = j.result_capability_id
       WHERE j.kind = 'tool_result'
         AND (j.result_capability_id IS NULL OR i.intent_id IS NULL OR c.state IS DISTINCT FROM 'consumed')
         AND NOT (c.state = 'revoked' AND i.intent_id IS NOT NULL AND j.effect_boundary = 'pre_effect_refusal' AND j.reason_code = c.revoked_reason
                  AND NOT EXISTS (SELECT 1 FROM effects e WHERE e.capability_id = c.capability_id))
         AND NOT (j.journal_seq <= coalesce((SELECT h.material_through FROM retention_horizon h WHERE h.chain = j.chain), 0) AND j.result_capability_id IS NOT NULL AND i.intent_id IS NULL AND c.capability_id IS NULL)
       ORDER BY j.chain, j.journal_seq
       LIMIT $1`,
      [LIST_LIMIT],
    );
    for (const r of orphans.rows) {
      const why = r.capability_id === null ? 'names no capability' : r.intent_id === null ? `capability ${r.capability_id} has no intent` : `capability ${r.capability_id} is ${r.state ?? 'missing'}, not consumed`;
      findings.push({ check: 'result_without_intent', message: `tool_result at journal_seq ${r.journal_seq} (decision ${r.decision_id}): ${why}` });
    }
  }

  private async decisionsWithSeveralFinals(client: PoolClient, findings: BijectionFinding[]): Promise<void> {
    // At most one final entry per tenant's decision (ADR 0061), judged by kind and by the tenant
    // the hashed entry names (the final_decision_id and tenant columns are derived; a tamperer could change them).
    const several = await client.query<{ decision_id: string; tenant: string; seqs: string[] }>(
      `SELECT d.decision_id, d.tenant, array_agg(${SEQ_NAME} ORDER BY j.recorded_at, j.journal_seq) AS seqs
       FROM decision_inbox d JOIN journal j ON j.decision_id = d.decision_id AND j.kind = ANY($1::text[]) AND j.entry::jsonb ->> 'tenant' = d.tenant
       GROUP BY d.decision_id, d.tenant HAVING count(*) > 1
       ORDER BY d.decision_id, d.tenant
       LIMIT $2`,
      [FINAL_KINDS, LIST_LIMIT],
    );
    for (const r of several.rows) {
      findings.push({ check: 'decision_with_several_finals', message: `decision ${r.decision_id} of tenant ${r.tenant} has ${r.seqs.length} final entries (journal_seq ${r.seqs.join(', ')})` });
    }
  }

  private async openDecisions(client: PoolClient, notes: string[]): Promise<void> {
    const open = (
      await client.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM decision_inbox d
         WHERE NOT EXISTS (SELECT 1 FROM journal j WHERE j.decision_id = d.decision_id AND j.tenant = d.tenant AND j.kind = ANY($1::text[]))`,
        [FINAL_KINDS],
      )
    ).rows[0].n;
    if (open !== '0') notes.push(`${open} decision(s) in the inbox have no final entry yet (pending or in flight)`);
  }
}

export function renderVerify(r: VerifyReport): string[] {
  const lines: string[] = [];
  // One chain reads as before; several are named, each walked on its own (ADR 0062).
  const many = r.chains.length > 1;
  for (const { chain, head, summary: c } of r.chains) {
    const range = c.firstSeq === null ? 'no rows' : `journal_seq ${c.firstSeq}..${c.lastSeq}`;
    lines.push(`${many ? `journal chain ${chain}` : 'journal'}: ${c.rowsChecked} rows checked (${range}), head at ${head?.last_seq ?? 'missing'}`);
    if (c.findings.length === 0) lines.push(`${many ? `chain ${chain} intact` : 'chain intact'}: every hash recomputes, seqs contiguous from 1, head matches the last row`);
    for (const f of c.findings) lines.push(f.message);
    if (c.findingsDropped > 0) lines.push(`… and ${c.findingsDropped} more chain findings`);
  }
  if (r.retention.materialThrough !== '0') {
    lines.push(
      `retention: material pruned through journal_seq ${r.retention.materialThrough}; ${r.retention.resultsWithPrunedIntent} tool_result entries there have no intent or capability left (ADR 0041)`,
    );
  }
  const b = r.bijections;
  lines.push(`bijections: ${b.consumedCapabilities} consumed capabilities, ${b.toolResults} tool_result entries`);
  if (b.findings.length === 0) lines.push('bijections hold: one result per consumed capability, each bound to its intent\'s receipt, an intent per result, at most one final per decision');
  for (const f of b.findings) lines.push(f.message);
  for (const n of b.notes) lines.push(`note: ${n}`);
  lines.push(r.intact ? 'verify: journal intact' : `verify: BROKEN (first: ${r.firstBreak})`);
  return lines;
}

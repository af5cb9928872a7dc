// Per-table footprint of the record: rows, heap, TOAST and index bytes, read from the catalog.
import type { Pool } from 'pg';

/** The tables a decision writes to (the demo tool's own notes table apart). */
export const RECORD_TABLES = ['decision_inbox', 'intents', 'capabilities', 'effects', 'confirmations', 'retries', 'journal', 'journal_checkpoints', 'outbox'] as const;

export interface TableSize {
  table: string;
  rows: number;
  /** The main fork (pg_relation_size). */
  heapBytes: number;
  /** All its indexes (pg_indexes_size). */
  indexBytes: number;
  /** pg_total_relation_size: heap, TOAST, indexes, free space and visibility maps. */
  totalBytes: number;
}

export async function tableSizes(db: Pool): Promise<TableSize[]> {
  const out: TableSize[] = [];
  for (const table of RECORD_TABLES) {
    // Exact counts (n_live_tup is an estimate until ANALYZE); the tables here are small.
    const { rows } = await db.query<{ rows: string; heap: string; idx: string; total: string }>(
      `SELECT (SELECT count(*) FROM ${table})::text AS rows, pg_relation_size($1)::text AS heap,
              pg_indexes_size($1)::text AS idx, pg_total_relation_size($1)::text AS total`,
      [table],
    );
    out.push({ table, rows: Number(rows[0].rows), heapBytes: Number(rows[0].heap), indexBytes: Number(rows[0].idx), totalBytes: Number(rows[0].total) });
  }
  return out;
}

const MB = 1024 * 1024;
const perMillion = (v: number, decisions: number) => (v / decisions) * 1_000_000;
const mb = (bytes: number) => (bytes / MB).toFixed(1);
const rowsText = (rows: number) => (rows >= 1_000_000 ? `${(rows / 1_000_000).toFixed(2)} M` : `${Math.round(rows / 1000)} k`);

/** A markdown table: rows and MB per million decisions, extrapolated linearly from `decisions`. */
export function perMillionTable(sizes: readonly TableSize[], decisions: number): string {
  const lines = ['| table | rows / M decisions | heap + TOAST MB / M | index MB / M | total MB / M |', '|---|---:|---:|---:|---:|'];
  const sum = { rows: 0, data: 0, idx: 0, total: 0 };
  for (const s of sizes) {
    const data = s.totalBytes - s.indexBytes;
    sum.rows += s.rows;
    sum.data += data;
    sum.idx += s.indexBytes;
    sum.total += s.totalBytes;
    lines.push(`| ${s.table} | ${rowsText(perMillion(s.rows, decisions))} | ${mb(perMillion(data, decisions))} | ${mb(perMillion(s.indexBytes, decisions))} | ${mb(perMillion(s.totalBytes, decisions))} |`);
  }
  lines.push(`| **all** | ${rowsText(perMillion(sum.rows, decisions))} | ${mb(perMillion(sum.data, decisions))} | ${mb(perMillion(sum.idx, decisions))} | ${mb(perMillion(sum.total, decisions))} |`);
  return lines.join('\n');
}

/**
 * Output shared by every command: readable text by default, one JSON document with --json
 * (tail: one JSON line per entry, so it can be piped while it runs). Human text goes to stdout;
 * diagnostics go to stderr so they never corrupt a JSON document.
 */
export interface Printer {
  readonly json: boolean;
  line(text?: string): void;
  /** One JSON value on one line (the whole document, or one tail entry). */
  jsonLine(value: unknown): void;
  error(text: string): void;
}

export function createPrinter(json: boolean, stdout: NodeJS.WritableStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): Printer {
  return {
    json,
    line: (text = '') => void stdout.write(`${text}\n`),
    jsonLine: (value) => void stdout.write(`${toJson(value)}\n`),
    error: (text) => void stderr.write(`${text}\n`),
  };
}

/** JSON.stringify that writes bigints as decimal strings (the wire contract's 64-bit form). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** A value as compact JSON, cut to `max` characters so one entry stays on one line. */
export function compact(value: unknown, max = 80): string {
  const text = value === undefined ? '' : toJson(value);
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Pads every column but the last to its widest cell. */
export function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd());
}

/** The fields of a journal entry that one readable line shows. */
export interface EntryLineFields {
  journalSeq: string;
  kind: string;
  decisionId: string;
  tool: string;
  effectBoundary: string;
  success?: boolean;
  reasonCode?: string | null;
  output?: unknown;
}

/** `#17 tool_result run-1:d3 notes.append effect_completed output={...}`, as cells. */
export function entryCells(e: EntryLineFields): string[] {
  const detail = e.reasonCode ? `reason=${e.reasonCode}` : e.output !== undefined ? `output=${compact(e.output)}` : '';
  return [`#${e.journalSeq}`, e.kind, e.decisionId, e.tool, e.effectBoundary, detail];
}

export function entryLine(e: EntryLineFields): string {
  return entryCells(e).filter(Boolean).join('  ');
}

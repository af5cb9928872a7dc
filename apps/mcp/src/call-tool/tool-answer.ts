import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JournalEntry, ResultAnswer } from '@arvis/decision-client';

/**
 * What a tools/call answers, as structured content (ADR 0074): `final` with the tool's output
 * (or the refusal's reason code) and the journal entry exactly as the results API gave it;
 * `pending` with the id to read it by later; `not_found`; `invalid` (nothing was sent).
 */
export type ToolAnswer =
  | { status: 'final'; decisionId: string; success: boolean; kind: string; output?: unknown; reasonCode?: string; entry: JournalEntry }
  | { status: 'pending'; decisionId: string; readWith: string }
  | { status: 'not_found'; decisionId: string }
  | { status: 'invalid'; issues: string[] };

export function answerOf(decisionId: string, read: ResultAnswer, readWith: string): ToolAnswer {
  if (read.status === 'pending') return { status: 'pending', decisionId, readWith };
  if (read.status === 'not_found') return { status: 'not_found', decisionId };
  const e = read.entry;
  return {
    status: 'final',
    decisionId,
    success: e.success,
    kind: e.kind,
    ...(e.output !== undefined ? { output: e.output } : {}),
    ...(e.reasonCode !== undefined ? { reasonCode: e.reasonCode } : {}),
    entry: e,
  };
}

const TEXT: Record<ToolAnswer['status'], (a: never) => string> = {
  final: (a: Extract<ToolAnswer, { status: 'final' }>) =>
    a.success ? JSON.stringify(a.output ?? null) : `refused: ${a.reasonCode ?? a.kind} (decision ${a.decisionId})`,
  pending: (a: Extract<ToolAnswer, { status: 'pending' }>) =>
    `decision ${a.decisionId} is pending (e.g. awaiting a human confirmation); read its result with the ${a.readWith} tool`,
  not_found: (a: Extract<ToolAnswer, { status: 'not_found' }>) => `no decision ${a.decisionId} of this caller`,
  invalid: (a: Extract<ToolAnswer, { status: 'invalid' }>) => `arguments refused, nothing sent: ${a.issues.join('; ')}`,
};

/** The answer as MCP's CallToolResult: structured, with the same thing as text for clients that read only text. */
export function toCallToolResult(answer: ToolAnswer): CallToolResult {
  const isError = answer.status === 'not_found' || answer.status === 'invalid' || (answer.status === 'final' && !answer.success);
  return {
    content: [{ type: 'text', text: TEXT[answer.status](answer as never) }],
    structuredContent: answer as unknown as Record<string, unknown>,
    isError,
  };
}

import { freezePayload } from '@arvis/effect-context';
import type { ToolSpec } from '@arvis/tool-catalog';
import { renderDisplayHints, type RenderedField } from './display-hints';
import { hiddenCharacters } from './hidden-characters';

/** At most this many confirmations per page; the default when `limit` is absent. */
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

/** One pending confirmation as the list query reads it (confirmations joined with the inbox). */
export interface PendingRow {
  confirmationId: string;
  decisionId: string;
  runId: string;
  principal: string;
  issuer: string | null;
  /** The calling service (the token's azp), from the claims kept in the inbox; null for rows from before ADR 0035. */
  serviceId: string | null;
  tool: string;
  payloadSha256: string;
  requestedAt: Date;
  expiresAt: Date;
  /** The parked decision as received (canonical JSON): the payload that will run is in it. */
  body: string | null;
  /** When the inbox received it: the run's earlier decisions are those received before. */
  receivedAt: Date;
}

/** A decision of the same run received before the parked one, and how it ended (null: not yet). */
export interface EarlierDecision {
  decisionId: string;
  tool: string;
  receivedAt: string;
  kind: string | null;
  effectBoundary: string | null;
  reasonCode: string | null;
}

/** The earlier decisions shown per card, newest last; older ones are counted, not listed. */
export const EARLIER_SHOWN = 10;

/** The manifest labels an approver weighs, from the catalog the authorizer loaded. */
export interface ToolLabels {
  provider: string | null;
  dataEgress: boolean;
  dataClass: string;
  reversible: boolean;
}

/** What an approver sees: the action exactly as it will run if approved. */
export interface PendingConfirmation {
  confirmationId: string;
  decisionId: string;
  runId: string;
  /** Who asked: subject and issuer (the principal is the pair), and the service that sent it. */
  requester: { principal: string; issuer: string | null; serviceId: string | null };
  tool: string;
  /** null when the tool is no longer in the authorizer's catalog (the decision will then be refused). */
  labels: ToolLabels | null;
  riskScore: number | null;
  /** The tool's display hints rendered beside the exact value of each hinted field (ADR 0069). */
  display: RenderedField[];
  /**
   * The tool is declared irreversible: the console approves it only with the tool's name typed
   * (ADR 0069). Null when the tool is no longer in the catalog.
   */
  typedConfirmation: string | null;
  /** The run's decisions received before this one, the last EARLIER_SHOWN, oldest first. */
  earlier: EarlierDecision[];
  /** The frozen payload: `payloadCanonical` is the text whose SHA-256 is `payloadSha256`. */
  payload: unknown;
  payloadCanonical: string | null;
  payloadSha256: string;
  /**
   * Strings of the payload or the requester that hold bidirectional controls or invisible code
   * points (their JSON path and the code points): the console shows them escaped and flagged.
   */
  hiddenCharacters: { path: string; codePoints: string[] }[];
  requestedAt: string;
  expiresAt: string;
}

export type PageQuery = { ok: true; limit: number; after: string | null } | { ok: false; message: string };

/** `?limit=` (1..MAX_PAGE, default DEFAULT_PAGE) and `?after=<confirmationId>` (the last one of the previous page). */
export function parsePageQuery(limit: unknown, after: unknown): PageQuery {
  let n = DEFAULT_PAGE;
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !/^[1-9][0-9]{0,3}$/.test(limit) || Number(limit) > MAX_PAGE) {
      return { ok: false, message: `limit must be an integer from 1 to ${MAX_PAGE}` };
    }
    n = Number(limit);
  }
  if (after !== undefined && (typeof after !== 'string' || after.length === 0 || after.length > 200)) {
    return { ok: false, message: 'after must be a confirmation id' };
  }
  return { ok: true, limit: n, after: typeof after === 'string' ? after : null };
}

const labelsOf = (spec: ToolSpec): ToolLabels => ({
  provider: spec.manifest.provider,
  dataEgress: spec.manifest.dataEgress,
  dataClass: spec.manifest.dataClass,
  reversible: spec.reversible,
});

/**
 * The row as an approver sees it. The payload is frozen from the stored decision the same way the
 * resumed decision freezes it, so what is shown is what would run; it is shown even if it no
 * longer hashes to the commitment (the resumed decision would then fail to reserve the approval).
 */
export function toPendingConfirmation(row: PendingRow, spec: ToolSpec | undefined, runDecisions: readonly EarlierDecision[] = []): PendingConfirmation {
  const decision = parseBody(row.body);
  const frozen = decision ? freezePayload(decision.payload) : null;
  const payload = frozen?.ok ? frozen.frozen.value : null;
  const requester = { principal: row.principal, issuer: row.issuer, serviceId: row.serviceId };
  return {
    confirmationId: row.confirmationId,
    decisionId: row.decisionId,
    runId: row.runId,
    requester,
    tool: row.tool,
    labels: spec ? labelsOf(spec) : null,
    riskScore: typeof decision?.riskScore === 'number' ? decision.riskScore : null,
    display: renderDisplayHints(payload, spec?.display),
    typedConfirmation: spec && !spec.reversible ? spec.name : null,
    earlier: earlierOf(row, runDecisions),
    payload,
    payloadCanonical: frozen?.ok ? frozen.frozen.canonical : null,
    payloadSha256: row.payloadSha256,
    hiddenCharacters: [...hiddenCharacters(payload, '$.payload'), ...hiddenCharacters(requester, '$.requester'), ...hiddenCharacters([row.decisionId, row.runId], '$.ids')],
    requestedAt: row.requestedAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

function earlierOf(row: PendingRow, runDecisions: readonly EarlierDecision[]): EarlierDecision[] {
  const received = row.receivedAt.toISOString();
  return runDecisions.filter((d) => d.decisionId !== row.decisionId && d.receivedAt <= received).slice(-EARLIER_SHOWN);
}

function parseBody(body: string | null): { payload?: unknown; riskScore?: unknown } | null {
  if (body === null) return null;
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { payload?: unknown; riskScore?: unknown }) : null;
  } catch {
    return null;
  }
}

import type { z } from 'zod';

/**
 * What a tool declares. The authorizer's policy and the dispatcher's runner read only this, and
 * the catalog's fingerprint covers every field (schemas as JSON Schema) except `display`, which
 * changes only how an approver is shown a payload, never what runs (ADR 0069).
 */
export interface ToolSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Validates the frozen payload (at authorization and again right before the body runs). */
  readonly input: I;
  /** Validates what the body returns (and what reconciliation reports). */
  readonly output: O;
  /** The body honours the idempotency key itself; otherwise the dispatcher keeps one live effect per key. */
  readonly idempotent: boolean;
  /** A failure may be retried as a new decision (durable retry governance). */
  readonly retryable: boolean;
  readonly sideEffectful: boolean;
  /**
   * Past this without a heartbeat (from the start, or from the body's last counted
   * `invocation.heartbeat()`) the body is aborted (its signal fires) and the effect ends timed out.
   */
  readonly timeoutMs: number;
  /**
   * The longest a body may run however it heartbeats (ADR 0077); absent: `timeoutMs`, so a
   * heartbeat moves nothing. At least `timeoutMs`.
   */
  readonly maxRunMs?: number;
  /** How a failure is retried (ADR 0076); absent: the service's defaults (RETRY_MAX_ATTEMPTS, no wait). */
  readonly retry?: ToolRetryPolicy;
  /** Decisions above this risk score are refused. */
  readonly maxRisk: number;
  /** A human approver must confirm each decision before it runs. */
  readonly requiresConfirmation: boolean;
  readonly auditRequired: boolean;
  readonly reversible: boolean;
  readonly manifest: ToolManifest;
  /**
   * Optional display hints for the approver console, keyed by a top-level input field: the
   * console renders each beside the exact value that will run (ADR 0069).
   */
  readonly display?: ToolDisplayHints;
}

/**
 * A tool's own retry policy. Retry n (1, 2, ...) waits `initialIntervalMs` ×
 * `backoffCoefficient`^(n-1), at most `maxIntervalMs`, from the failure it answers (database
 * time, stored as the retry's not-before). Governance is unchanged: each retry is a new decision
 * under the risk ceiling, with a fresh capability and the same idempotency key; `retryable`,
 * `idempotent` and `sideEffectful` still decide whether a failure is retried at all.
 */
export interface ToolRetryPolicy {
  /** Attempts in all, the first included (1 to 10); default RETRY_MAX_ATTEMPTS. */
  readonly maxAttempts?: number;
  /** Wait before the first retry; default 0 (the retry worker's next pass). */
  readonly initialIntervalMs?: number;
  /** Default 2. */
  readonly backoffCoefficient?: number;
  /** Default: no bound. */
  readonly maxIntervalMs?: number;
  /** The tool's own error codes (ToolError.code) that are never retried. */
  readonly nonRetryableErrorCodes?: readonly string[];
}

/**
 * How an approver is shown one input field, beside its exact value:
 * - `money`: an integer amount in minor units, with its currency either fixed (`currency`) or read
 *   from another input field (`currencyField`), and the currency's minor units (`minorUnits`,
 *   default: the ISO 4217 exponent as the runtime's Intl knows it, else 2);
 * - `timestamp`: an RFC 3339 string, or epoch milliseconds / seconds (`unit`), shown as UTC;
 * - `enum`: a label for each value the field may take.
 */
export type ToolDisplayHint =
  | { readonly kind: 'money'; readonly currency?: string; readonly currencyField?: string; readonly minorUnits?: number }
  | { readonly kind: 'timestamp'; readonly unit?: 'rfc3339' | 'ms' | 's' }
  | { readonly kind: 'enum'; readonly labels: Readonly<Record<string, string>> };
export type ToolDisplayHints = Readonly<Record<string, ToolDisplayHint>>;

export interface ToolManifest {
  /** null for a sovereign tool; a provider name means the effect crosses a trust boundary. */
  readonly provider: string | null;
  /** The tool sends data out of the tenant's control (the egress gate applies). */
  readonly dataEgress: boolean;
  readonly dataClass: string;
  /** A consent the principal must have granted (the consent gate), or null. */
  readonly requiredConsent: string | null;
}

/** Who the effect is for, as authorized and frozen; identical at authorization and at the effect. */
export interface ToolEffectContext {
  readonly effectContextFormatVersion: number;
  readonly principal: string;
  readonly tenant: string;
  readonly authenticationSource: string;
  readonly authenticationStrength: string;
  readonly serviceId: string;
  readonly sessionIdHash: string | null;
  readonly processId: string;
  readonly runId: string;
}

/** A result of one statement: what a pg Pool's query resolves to, reduced to what tools read. */
export interface ToolQueryResult<R> {
  readonly rows: R[];
  readonly rowCount: number | null;
}

/** A connection taken from the pool, for a transaction of the tool's own; release it when done. */
export interface ToolDatabaseClient {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<ToolQueryResult<R>>;
  release(): void;
}

/**
 * The tools' own connection pool to the service's PostgreSQL database (a pg Pool), apart from the
 * dispatcher's transactions: a body never joins or holds open the dispatcher's transaction.
 * The tables it reaches are the ones the package's migrations create.
 */
export interface ToolDatabase {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<ToolQueryResult<R>>;
  connect(): Promise<ToolDatabaseClient>;
}

/** Everything a body may act on; it runs once per consumed capability. */
export interface ToolInvocation<I = unknown> {
  /** The frozen payload, validated by the tool's input schema right before the call. */
  readonly input: I;
  readonly effectContext: ToolEffectContext;
  /** Stable across retries of one logical action: key your effect by it to honour it. */
  readonly idempotencyKey: string;
  /** Stable per capability (one attempt); tools that record effects may key rows by it. */
  readonly capabilityId: string;
  readonly decisionId: string;
  /** Aborted when timeoutMs has passed without a heartbeat, or maxRunMs in all; a body that can stop should. */
  readonly signal: AbortSignal;
  readonly db: ToolDatabase;
  /**
   * A long body says it is alive: its timeout and its effect's stored deadline move to now +
   * timeoutMs, never past maxRunMs from its start (ADR 0077). Cheap to call often: at most one
   * in a third of timeoutMs is written, so call it at least every half of timeoutMs. A no-op for
   * a tool that declares no maxRunMs.
   */
  heartbeat(): void;
  /** 1 for the first attempt of an action, n + 1 for its retry n. */
  readonly attempt: number;
  /** Log lines carrying the decision's ids (decisionId, tool, capabilityId) as fields. */
  readonly logger: ToolLogger;
}

/** A structured logger: a stable message and fields (never secrets, never the payload). */
export interface ToolLogger {
  debug(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  info(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  error(msg: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** What a tool can say of an effect looked up by its idempotency key. */
export type Reconciliation<O = unknown> =
  | { readonly found: 'completed'; readonly output: O }
  /** No effect exists, and none can still land: the action may run again. */
  | { readonly found: 'none' }
  | { readonly found: 'cannot_tell' };

export interface ReconcileLookup {
  readonly idempotencyKey: string;
  readonly capabilityId: string;
  readonly db: ToolDatabase;
}

/** A tool: its spec and its body (and, optionally, how to find out whether an effect happened). */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ToolSpec<I, O> {
  /**
   * The effect. Its return value must satisfy `output`; a throw is a failed effect (retried as
   * a new decision when `retryable`, per `retry`; never for a NonRetryableToolError or a
   * ToolError whose code the policy names).
   */
  execute(invocation: ToolInvocation<z.output<I>>): Promise<z.input<O>>;
  /**
   * Optional. Asked by recovery when a started effect has no recorded result (its dispatcher
   * died): did the effect with this idempotency key happen? Answer `none` only when nothing can
   * still land; when in doubt, `cannot_tell` (the effect stays unknown and is never rerun).
   */
  reconcile?(lookup: ReconcileLookup): Promise<Reconciliation<z.input<O>>>;
}

/**
 * Declares a tool; the result is frozen. The schemas are the only zod objects the host touches,
 * through `safeParse` and `toJSONSchema` (never `instanceof`), so a package may bring its own
 * copy of zod 4.
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(definition: ToolDefinition<I, O>): ToolDefinition<I, O> {
  const display = definition.display ? Object.freeze({ ...definition.display }) : undefined;
  const retry = definition.retry ? Object.freeze({ ...definition.retry }) : undefined;
  return Object.freeze({ ...definition, manifest: Object.freeze({ ...definition.manifest }), ...(display ? { display } : {}), ...(retry ? { retry } : {}) });
}

export const crossesTrustBoundary = (spec: Pick<ToolSpec, 'manifest'>): boolean => spec.manifest.provider !== null;

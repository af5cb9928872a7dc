// Brands, not instanceof: a package may bring its own copy of the SDK (as of zod), and the host
// must still tell its errors apart.
const TOOL_ERROR = Symbol.for('arvis.tool-sdk.tool-error');
const NON_RETRYABLE = Symbol.for('arvis.tool-sdk.non-retryable');

/**
 * A failure a body reports with its own code (e.g. `card_declined`). The journal's reason code
 * stays `tool_execution_failed` (a closed set); the code goes in the error's details, and the
 * tool's retry policy may name it as never retried (`retry.nonRetryableErrorCodes`).
 */
export class ToolError extends Error {
  readonly [TOOL_ERROR] = true;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ToolError';
  }
}

/** A failure that no retry can mend, whatever the tool's policy: the action ends at once. */
export class NonRetryableToolError extends ToolError {
  readonly [NON_RETRYABLE] = true;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'NonRetryableToolError';
  }
}

/** What the journal's error details say of a thrown value; undefined for anything but a ToolError. */
export interface ToolErrorDetails {
  readonly toolErrorCode: string;
  readonly nonRetryable?: true;
}

export function toolErrorDetails(error: unknown): ToolErrorDetails | undefined {
  const e = error as Record<symbol, unknown> & { code?: unknown } | null;
  if (typeof e !== 'object' || e === null || e[TOOL_ERROR] !== true || typeof e.code !== 'string') return undefined;
  return e[NON_RETRYABLE] === true ? { toolErrorCode: e.code, nonRetryable: true } : { toolErrorCode: e.code };
}

export {
  defineTool,
  crossesTrustBoundary,
  type ToolSpec,
  type ToolManifest,
  type ToolDisplayHint,
  type ToolDisplayHints,
  type ToolDefinition,
  type ToolInvocation,
  type ToolLogger,
  type ToolRetryPolicy,
  type ToolEffectContext,
  type ToolDatabase,
  type ToolDatabaseClient,
  type ToolQueryResult,
  type Reconciliation,
  type ReconcileLookup,
} from './tool';
export { defineToolPackage, type ToolPackage } from './tool-package';
export { EffectNotStartedError, type NotStartedReason } from './not-started';
export { ToolError, NonRetryableToolError, toolErrorDetails, type ToolErrorDetails } from './tool-error';
export { runBody, classifyOutcome, outputProblem, type BodyOutcome, type BodyResult, type BodyControls, type BodyRunOptions } from './run-body';

export {
  defineTool,
  crossesTrustBoundary,
  type ToolSpec,
  type ToolManifest,
  type ToolDisplayHint,
  type ToolDisplayHints,
  type ToolDefinition,
  type ToolInvocation,
  type ToolEffectContext,
  type ToolDatabase,
  type ToolDatabaseClient,
  type ToolQueryResult,
  type Reconciliation,
  type ReconcileLookup,
} from './tool';
export { defineToolPackage, type ToolPackage } from './tool-package';
export { EffectNotStartedError, type NotStartedReason } from './not-started';

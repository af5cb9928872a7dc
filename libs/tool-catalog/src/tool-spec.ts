// The spec types live in the SDK a tool author installs; the catalog only reads them.
export { defineTool, crossesTrustBoundary, type ToolSpec, type ToolDefinition, type ToolPackage, type ToolDisplayHint, type ToolDisplayHints } from '@arvis/tool-sdk';


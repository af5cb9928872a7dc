export { defineTool, crossesTrustBoundary, type ToolSpec, type ToolDefinition, type ToolPackage, type ToolDisplayHint, type ToolDisplayHints } from './tool-spec';
export { ToolCatalog, jsonSchemaOf } from './tool-catalog';
export { assembleTools, describeTools, loadToolPackages, toolPackageProblems, toolPackagesEnv, type ToolSet } from './tool-packages';

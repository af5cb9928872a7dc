export { defineTool, crossesTrustBoundary, type ToolSpec, type ToolDefinition, type ToolPackage } from './tool-spec';
export { ToolCatalog, jsonSchemaOf } from './tool-catalog';
export { assembleTools, describeTools, loadToolPackages, toolPackageProblems, toolPackagesEnv, type ToolSet } from './tool-packages';

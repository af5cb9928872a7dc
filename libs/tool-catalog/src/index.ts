export { defineTool, crossesTrustBoundary, type ToolSpec } from './tool-spec';
export { ToolCatalog } from './tool-catalog';
export { notesAppend, flakyRecord, demoCatalog, skewedDemoCatalog } from './demo-tools';

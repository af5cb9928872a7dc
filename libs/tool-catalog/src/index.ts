export { defineTool, crossesTrustBoundary, type ToolSpec } from './tool-spec';
export { ToolCatalog } from './tool-catalog';
export { notesAppend, flakyRecord, mailSend, ledgerTransfer, demoCatalog, skewedDemoCatalog } from './demo-tools';

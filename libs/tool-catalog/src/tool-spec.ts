// The spec types live in the SDK a tool author installs; the catalog only reads them.
export { defineTool, crossesTrustBoundary, type ToolSpec, type ToolDefinition, type ToolPackage } from '@arvis/tool-sdk';

/** The one method of a zod schema the host calls; any zod 4 copy has it (no `instanceof`). */
export interface ParsingSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[]; message: string } };
}

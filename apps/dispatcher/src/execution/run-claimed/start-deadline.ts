import type { ToolCatalog } from '@arvis/tool-catalog';
import type { DispatcherConfig } from '../../config/dispatcher.config';

/** A started body's deadline: its tool's timeout plus the recovery grace; past it, recovery calls it lost. */
export function startDeadlineMs(catalog: ToolCatalog, config: DispatcherConfig, tool: string): number {
  return (catalog.get(tool)?.timeoutMs ?? 0) + config.recovery.graceMs;
}

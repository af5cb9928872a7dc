import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { arvisVersion } from '@arvis/config';

/** How often the event-loop delay is sampled, as the other services (ADR 0059). */
const EVENT_LOOP_SAMPLE_MS = 100;

export function mcpMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  new Gauge({ name: 'arvis_build_info', help: 'Always 1; the version label is the release this process runs (package.json)', labelNames: ['version', 'service'], registers: [registry] }).set(
    { version: arvisVersion(), service: 'mcp' },
    1,
  );
  // Bounded labels: the tool names come from the catalog (unknown names are counted as one), the answer from ToolAnswer.
  const toolCalls = new Counter({
    name: 'arvis_mcp_tool_calls_total',
    help: 'tools/call requests answered, by tool and answer (final_success, final_refused, pending, not_found, invalid, unknown_tool, failed)',
    labelNames: ['tool', 'answer'],
    registers: [registry],
  });
  return { registry, toolCalls };
}

export type McpMetrics = ReturnType<typeof mcpMetrics>;
export const MCP_METRICS = Symbol('MCP_METRICS');

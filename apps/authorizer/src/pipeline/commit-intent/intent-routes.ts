import { intentsTopicOf, type Topics } from '@arvis/contracts';
import type { ToolCatalog } from '@arvis/tool-catalog';

/** Where a tool's intents go (ADR 0080): its pool, that pool's topic and catalog fingerprint. */
export interface IntentRoute {
  pool: string;
  topic: string;
  fingerprint: string;
}

/** Tool name -> its route, made once at start: routing an intent is then one map lookup. */
export function intentRoutes(catalog: ToolCatalog, topics: Pick<Topics, 'intents'>): ReadonlyMap<string, IntentRoute> {
  return new Map(
    catalog.names().map((tool) => {
      const pool = catalog.poolOf(tool)!;
      return [tool, { pool, topic: intentsTopicOf(topics, pool), fingerprint: catalog.fingerprintOf(tool)! }] as const;
    }),
  );
}

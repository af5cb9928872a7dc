import type { CapabilityFacts } from '@arvis/journal';
import type { Tx } from '@arvis/persistence';
import { loadStoredIntents } from '../verify-intent/load-stored-intents';

/** Journal facts of intents known only by capability id (recovery, duplicates), from the intents table. */
export async function storedFactsOf(tx: Tx, capabilityIds: readonly string[]): Promise<Map<string, CapabilityFacts>> {
  if (capabilityIds.length === 0) return new Map();
  const rows = await loadStoredIntents(tx, 'capability_id', capabilityIds);
  if (rows.length !== new Set(capabilityIds).size) throw new Error(`found ${rows.length} intents for ${capabilityIds.length} capabilities`);
  return new Map(
    rows.map((i) => [
      i.capabilityId,
      {
        decisionId: i.decisionId,
        runId: i.runId,
        causalId: i.causalId,
        tenant: i.tenant,
        principal: i.principal,
        tool: i.tool,
        capabilityId: i.capabilityId,
        intentCommitment: i.intentCommitment,
        idempotencyKey: i.idempotencyKey,
      },
    ]),
  );
}

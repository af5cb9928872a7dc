import { z } from 'zod';
import { commonEnvShape, commonSettings, envOptionalInt, envString, loadConfig, managementPortOf } from '@arvis/config';

/** Every variable the relay reads (docs/configuration.md is generated from it). */
export const RelayEnv = z.object({
  ...commonEnvShape,
  /** Health and metrics, the relay's only HTTP surface (ADR 0038); HTTP_PORT is its former name. */
  MANAGEMENT_PORT: envOptionalInt(1, 65535),
  HTTP_PORT: envOptionalInt(1, 65535),
  KAFKA_CLIENT_ID: envString('arvis-relay'),
});

export function loadRelayConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(RelayEnv, env);
  const common = commonSettings(e, e.KAFKA_CLIENT_ID, 'arvis-relay-unused');
  // This process exists to relay; RELAY_ENABLED applies to the relays inside the two apps.
  return { ...common, relay: { ...common.relay, enabled: true }, service: 'relay' as const, managementPort: managementPortOf(e, 3003) };
}

export type RelayConfig = ReturnType<typeof loadRelayConfig>;

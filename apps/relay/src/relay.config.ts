import { z } from 'zod';
import { commonEnvShape, commonSettings, envInt, envString, loadConfig } from '@arvis/config';

const RelayEnv = z.object({
  ...commonEnvShape,
  HTTP_PORT: envInt(3003, 1, 65535),
  KAFKA_CLIENT_ID: envString('arvis-relay'),
});

export function loadRelayConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(RelayEnv, env);
  const common = commonSettings(e, e.KAFKA_CLIENT_ID, 'arvis-relay-unused');
  // This process exists to relay; RELAY_ENABLED applies to the relays inside the two apps.
  return { ...common, relay: { ...common.relay, enabled: true }, service: 'relay' as const, httpPort: e.HTTP_PORT };
}

export type RelayConfig = ReturnType<typeof loadRelayConfig>;

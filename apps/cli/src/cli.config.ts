import { z } from 'zod';
import { commonEnvShape, loadConfig, topicsFor } from '@arvis/config';
import { toolPackagesEnv } from '@arvis/tool-catalog';

// Only what the analyst CLI needs, with the services' own rules and defaults, so the CLI
// points at the same database and topics as the services of one environment.
const CliEnv = z.object({
  DATABASE_URL: commonEnvShape.DATABASE_URL,
  KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
  ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
  ARVIS_TOOL_PACKAGES: toolPackagesEnv,
});

export function loadCliConfig(env?: Record<string, string | undefined>) {
  const e = loadConfig(CliEnv, env);
  return {
    databaseUrl: e.DATABASE_URL,
    brokers: e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    topics: topicsFor(e.ARVIS_TOPIC_PREFIX),
    toolPackages: e.ARVIS_TOOL_PACKAGES,
  };
}

export type CliConfig = ReturnType<typeof loadCliConfig>;

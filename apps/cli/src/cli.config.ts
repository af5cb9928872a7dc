import { z } from 'zod';
import { commonEnvShape, ConfigError, databaseUrlFor, envJson, kafkaSecurity, kafkaSecurityEnvShape, loadConfig, topicsFor } from '@arvis/config';
import { loadEd25519PublicKey, type VerificationKeyring } from '@arvis/crypto';
import { toolPackagesEnv } from '@arvis/tool-catalog';

// Only what the analyst CLI needs, with the services' own rules and defaults, so the CLI
// points at the same database and topics as the services of one environment.
const TopicEnv = {
  KAFKA_BROKERS: commonEnvShape.KAFKA_BROKERS,
  ARVIS_TOPIC_PREFIX: commonEnvShape.ARVIS_TOPIC_PREFIX,
  ARVIS_TOOL_PACKAGES: toolPackagesEnv,
  // The analyst's own principal: it reads the journal topic only (docs/kafka-security.md).
  ...kafkaSecurityEnvShape,
};

/** keyId -> Ed25519 public key of the journal checkpoints (PEM or base64 spki DER). */
const CheckpointKeys = envJson(
  z
    .record(z.string().min(1), z.string().min(1))
    .refine((m) => Object.keys(m).length > 0, 'at least one checkpoint public key is required ({"keyId": "publicKeyPem"})')
    .transform((m, ctx) => {
      const ring = new Map<string, ReturnType<typeof loadEd25519PublicKey>>();
      for (const [keyId, pem] of Object.entries(m)) {
        try {
          ring.set(keyId, loadEd25519PublicKey(pem));
        } catch (e) {
          ctx.addIssue({ code: 'custom', path: [keyId], message: (e as Error).message });
        }
      }
      return ring as VerificationKeyring;
    }),
  {},
);

/** What a command needs; --from-topic needs no database, so DATABASE_URL is not even read. */
export interface CliNeeds {
  database: boolean;
  checkpointKeys: boolean;
  /** `admin`: the authorizer's base URL and the operator's bearer token. */
  admin?: boolean;
}

const AdminEnv = {
  ADMIN_URL: z.url({ protocol: /^https?$/, error: 'ADMIN_URL must be the authorizer\'s http(s) base URL, e.g. http://127.0.0.1:3001' }),
  ADMIN_TOKEN: z.string({ error: 'ADMIN_TOKEN (the operator\'s bearer token, with the admin role) is required' }).min(1),
};

/** What one command reads (docs/configuration.md is generated from it with every need). */
export function cliEnvSchema(needs: CliNeeds) {
  return z.object({
    ...TopicEnv,
    // The profile only says whether DATABASE_URL may fall back to the local database.
    ...(needs.database ? { ARVIS_PROFILE: commonEnvShape.ARVIS_PROFILE, DATABASE_URL: commonEnvShape.DATABASE_URL } : {}),
    ...(needs.checkpointKeys ? { JOURNAL_CHECKPOINT_VERIFICATION_KEYS: CheckpointKeys } : {}),
    ...(needs.admin ? AdminEnv : {}),
  });
}

export function loadCliConfig(env?: Record<string, string | undefined>, needs: CliNeeds = { database: true, checkpointKeys: false }) {
  const schema = cliEnvSchema(needs);
  const e = loadConfig(schema, env) as z.output<typeof schema> & {
    ARVIS_PROFILE?: 'production' | 'test' | 'development';
    DATABASE_URL?: string;
    JOURNAL_CHECKPOINT_VERIFICATION_KEYS?: VerificationKeyring;
    ADMIN_URL?: string;
    ADMIN_TOKEN?: string;
  };
  const database = e.ARVIS_PROFILE !== undefined ? databaseUrlFor({ ARVIS_PROFILE: e.ARVIS_PROFILE, DATABASE_URL: e.DATABASE_URL }) : undefined;
  const { security, issues } = kafkaSecurity(e);
  if (issues.length + (database?.issues.length ?? 0) > 0) throw new ConfigError([...(database?.issues ?? []), ...issues]);
  const brokers = e.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean);
  return {
    /** Undefined when the command runs without a database. */
    databaseUrl: database?.url,
    brokers,
    kafka: { brokers, security },
    topics: topicsFor(e.ARVIS_TOPIC_PREFIX),
    checkpointKeys: e.JOURNAL_CHECKPOINT_VERIFICATION_KEYS ?? (new Map() as VerificationKeyring),
    toolPackages: e.ARVIS_TOOL_PACKAGES,
    admin: e.ADMIN_URL !== undefined && e.ADMIN_TOKEN !== undefined ? { url: e.ADMIN_URL, token: e.ADMIN_TOKEN } : undefined,
  };
}

export type CliConfig = ReturnType<typeof loadCliConfig>;

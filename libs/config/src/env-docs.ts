/**
 * What each environment variable means, beside the zod schemas that parse it: the one source of
 * docs/configuration.md and the .env.example files (scripts/configuration-reference), and of
 * which variables may come from a file (`<NAME>_FILE`, read by loadConfig). Types, defaults and
 * bounds are not restated here: the generator reads them from the schemas.
 */
export interface EnvVariableDoc {
  description: string;
  /** ADR numbers (docs/adr/) of the guarantee the variable belongs to. */
  adr?: readonly string[];
  /** Never logged; may come from `<NAME>_FILE` (a mounted secret). */
  secret?: true;
  /** Not secret, but long enough to be mounted as a file: `<NAME>_FILE` accepted too. */
  fromFile?: true;
  /** Shown as the type where the schema's own (string, JSON) says too little. */
  type?: string;
  /**
   * Shown as the default where the schema's says too little because it is worked out at start-up;
   * per component (others show the schema's) when an object.
   */
  computedDefault?: string | Readonly<Record<string, string>>;
}

const kafka = ['0033'];
const relay = ['0004'];

export const ENV_DOCS: Readonly<Record<string, EnvVariableDoc>> = {
  // Common to the services
  ARVIS_PROFILE: { description: '`production` refuses fault points, plain SASL without TLS and the console dev sign-in, and needs DATABASE_URL and (authorizer) TRUST_PROXY set; `test` and `development` relax those.' },
  LOG_LEVEL: { description: 'pino log level. At `info` nothing is logged per decision on the hot path.', adr: ['0064'] },
  LOG_FORMAT: { description: '`json`: one JSON object per line with the ids as fields (for a log pipeline); `pretty`: one human line per event (a terminal).', adr: ['0064'] },
  DATABASE_URL: {
    description: 'PostgreSQL URL of the record, logging in as the component\'s own role in a secured deployment.',
    adr: ['0034'],
    secret: true,
    computedDefault: 'required in the production profile; `postgresql://postgres@127.0.0.1:5432/arvis` in the others',
  },
  HTTP_HOST: { description: 'Address the HTTP listeners (API and management port) bind to; `0.0.0.0` inside a container.', adr: ['0038'] },
  DATABASE_POOL_SIZE: { description: 'Connections of the service\'s own pool.', adr: ['0044'] },
  DATABASE_TX_TIMEOUT_MS: { description: 'A transaction still open after this long is rolled back.', adr: ['0044'] },
  KAFKA_BROKERS: { description: 'Comma-separated `host:port` of the brokers.' },
  KAFKA_SESSION_TIMEOUT_MS: { description: 'Consumer group session timeout: a consumer silent for this long loses its partitions.', adr: ['0046'] },
  KAFKA_HEARTBEAT_INTERVAL_MS: { description: 'How often a consumer tells the group coordinator it is alive (well below the session timeout).', adr: ['0046'] },
  KAFKA_PARTITIONS_CONCURRENCY: { description: 'Partitions whose slices are handled at the same time by one process.', adr: ['0018', '0042'] },
  KAFKA_MAX_BATCH_BYTES: { description: 'Most bytes one fetch asks the broker for (kafkajs `maxBytes`; each partition\'s share stays 1 MB). The dispatcher\'s default has room for three intents partitions under a backlog, so their slices overlap.', adr: ['0042', '0094'] },
  KAFKA_COMMIT_INTERVAL_MS: { description: 'How long a consumed slice\'s offset may wait to be committed together with other partitions\' (0: each slice at once); a restart redelivers what waited, which handlers dedupe.', adr: ['0058'] },
  KAFKA_CONNECT_RETRIES: { description: 'kafkajs\'s retries per connection attempt; start-up itself retries without end and stays not ready.', adr: ['0019'] },
  ARVIS_TOPIC_PREFIX: { description: 'Prefix of every topic name (empty: `arvis.decisions`, …).' },
  RESULT_TOPIC_TENANTS: {
    description: 'JSON list of the tenants that get a result topic of their own, `<prefix>arvis.results.<tenant encoded>` (docs/result-topics.md): every relay also copies a final entry of such a tenant there; `npm run topics` creates them and `npm run kafka:acls` lets each tenant\'s readers (KAFKA_RESULT_READERS) read only its own. The same list for every process.',
    adr: ['0073'],
    type: 'JSON list',
  },
  RELAY_ENABLED: { description: 'Runs the outbox relay inside this app; the relay app (`apps/relay`) always relays.', adr: relay },
  RELAY_BATCH_SIZE: { description: 'Outbox rows read per relay round.', adr: relay },
  RELAY_LEASE_MS: { description: 'Longest a relay may hold the publishing lock idle in its transaction (waiting on the broker, or paused): past it PostgreSQL ends its session, the lock passes to another relay, and the batch is published again (at least once, readers deduplicate).', adr: ['0004', '0068'] },
  RELAY_SHARDS: { description: 'Shards of the outbox, by message key (a run\'s messages are in one shard): each shard has its own publishing lock, so relays in several processes publish different shards at once. The count is the database\'s (store_identity.relay_shards): `npm run migrate` with RELAY_SHARDS sets it, waiting for the batches in flight, and every relay adopts it at its next batch (a relay whose RELAY_SHARDS differs logs a warning and uses the database\'s). Unset for migrate: left as it is.', adr: ['0089'] },
  RELAY_POLL_MS: { description: 'How often the relay looks for rows when no NOTIFY woke it, while the poll is needed (rows found, a batch failed, another relay active, the listener reconnecting); idle, the period doubles up to IDLE_POLL_MAX_MS.', adr: [...relay, '0059'] },
  IDLE_POLL_MAX_MS: { description: 'The longest an idle background poll sleeps where a wake-up signal covers its work: the relay\'s fallback poll behind LISTEN/NOTIFY, the journal checkpointer behind the relay\'s publishes, and (in a process with a relay) the confirmation and retry workers behind the relay\'s NOTIFY. Back to their own period at the first sign of work; deadlines (a confirmation\'s expiry, a retry\'s not-before) are waited for by a timer, never by this.', adr: ['0059'] },
  RELAY_RETENTION_MS: { description: 'Published outbox rows kept this long, then deleted in batches of RELAY_PRUNE_BATCH.', adr: ['0004', '0041'] },
  RELAY_PRUNE_BATCH: { description: 'Published outbox rows deleted per prune statement.', adr: ['0004', '0041'] },
  RELAY_PRUNE_INTERVAL_MS: { description: 'How often published outbox rows past RELAY_RETENTION_MS are pruned.', adr: ['0004', '0041'] },
  RELAY_MAX_BATCH_BYTES: { description: 'Payload (plus key and headers) bytes in one relay send; one partition\'s share is one record batch, below the broker\'s `message.max.bytes`.', adr: ['0004', '0046'] },
  RELAY_MAX_MESSAGE_BYTES: { description: 'An outbox row larger than this is quarantined without being sent (`arvis_outbox_quarantined`).', adr: ['0003', '0004'] },
  DLQ_MAX_RAW_BYTES: { description: 'Raw bytes of an unreadable message kept in its DLQ record (base64: 4/3 of this); the record must fit RELAY_MAX_MESSAGE_BYTES.', adr: ['0003'] },
  ARVIS_FAULTS: { description: 'Fault points for the fault specs (JSON); refused in the production profile.', adr: ['0011', '0021'], type: 'JSON object' },
  CONSUMER_MAX_HANDLER_ATTEMPTS: { description: 'Attempts at one message that keeps failing (not a transient fault) before it is isolated and dead-lettered.', adr: ['0001', '0019'] },
  CONSUMER_SLICE_TARGET_MS: { description: 'How long one slice should take: slices grow while they finish sooner and shrink when they overrun.', adr: ['0042', '0046'] },
  HEAP_GROWING_PERCENT: { description: 'How far V8\'s old generation may grow past what survived the last full GC before the next one, in percent; 0 leaves it to V8 (up to four times). Bounds the promoted garbage a burst leaves in the resident set.', adr: ['0051', '0085'] },
  JOURNAL_CHECKPOINT_SIGNING_KEY_ID: { description: 'Key id of the journal checkpoint signing key; set with JOURNAL_CHECKPOINT_SIGNING_KEY or not at all (no checkpoints).', adr: ['0025'] },
  JOURNAL_CHECKPOINT_SIGNING_KEY: { description: 'Ed25519 private key (PEM or base64 pkcs8 DER) signing journal checkpoints, used by whichever process runs the active relay; `arvis keys generate checkpoint` makes one.', adr: ['0025'], secret: true },
  JOURNAL_CHECKPOINT_EVERY_ENTRIES: { description: 'A checkpoint is due once this many entries are unsigned…', adr: ['0025'] },
  JOURNAL_CHECKPOINT_EVERY_MS: { description: '…or once the oldest unsigned entry is this old.', adr: ['0025'] },
  OTEL_EXPORTER_OTLP_ENDPOINT: { description: 'Base URL of an OTLP/HTTP receiver; spans go to `<endpoint>/v1/traces`. Unset: no tracing.', adr: ['0028'] },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { description: 'Full URL for traces; wins over OTEL_EXPORTER_OTLP_ENDPOINT.', adr: ['0028'] },
  OTEL_SERVICE_NAME: { description: '`service.name` of the spans.', adr: ['0028'], computedDefault: '`arvis-<service>`' },
  OTEL_TRACES_SAMPLER: { description: 'OpenTelemetry sampler.', adr: ['0028'] },
  OTEL_TRACES_SAMPLER_ARG: { description: 'Ratio of the `traceidratio` samplers.', adr: ['0028'] },
  OTEL_RESOURCE_ATTRIBUTES: { description: 'Extra resource attributes of every span, `key=value` pairs separated by commas (values percent-encoded); OTEL_SERVICE_NAME wins over a `service.name` here.', adr: ['0028', '0064'], type: 'key=value list' },
  OTEL_EXPORTER_OTLP_HEADERS: { description: 'Headers of every OTLP export request (a collector\'s API key), `key=value` pairs separated by commas.', adr: ['0028', '0064'], secret: true, type: 'key=value list' },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: { description: 'Headers of the trace export requests, merged over OTEL_EXPORTER_OTLP_HEADERS.', adr: ['0028', '0064'], secret: true, type: 'key=value list' },
  KAFKA_SASL_MECHANISM: { description: 'SASL mechanism of every Kafka client of the process.', adr: kafka },
  KAFKA_SASL_USERNAME: { description: 'The process\'s principal (one per service).', adr: kafka },
  KAFKA_SASL_PASSWORD: { description: 'SASL password; or KAFKA_SASL_PASSWORD_FILE, exactly one with a mechanism.', adr: kafka, secret: true },
  KAFKA_SASL_PASSWORD_FILE: { description: 'File holding the SASL password (read once at start-up).', adr: kafka },
  KAFKA_TLS: { description: 'TLS to the brokers (the system\'s CAs unless KAFKA_TLS_CA_FILE names others).', adr: kafka },
  KAFKA_TLS_CA_FILE: { description: 'CA bundle (PEM file) for the brokers\' certificates.', adr: kafka },
  KAFKA_TLS_CERT_FILE: { description: 'Client certificate (PEM file) for mutual TLS; with KAFKA_TLS_KEY_FILE.', adr: kafka },
  KAFKA_TLS_KEY_FILE: { description: 'Client private key (PEM file) for mutual TLS; with KAFKA_TLS_CERT_FILE.', adr: kafka },
  KAFKA_GROUP_ID: { description: 'Consumer group of the service (the ACLs name it).', adr: kafka },
  KAFKA_CLIENT_ID: { description: 'kafkajs client id, seen in the broker\'s logs and quotas.', adr: kafka },
  CONSUMER_SLICE_SIZE: { description: 'Most messages handled in one slice (one read, one commit).', adr: ['0042', '0049'] },
  HTTP_PORT: { description: 'Authorizer: the approver API and console. MCP front door: the MCP endpoint and its metadata. Dispatcher and relay: the former name of MANAGEMENT_PORT, read when that is unset.', adr: ['0038'] },
  MANAGEMENT_PORT: { description: 'Health and metrics (`/health/live`, `/health/ready`, `/metrics`), and nothing else.', adr: ['0038'], computedDefault: { dispatcher: '3002, or HTTP_PORT', relay: '3003, or HTTP_PORT' } },
  ARVIS_TOOL_PACKAGES: { description: 'Tool packages (module specifiers or paths, resolved from the project root); a service with none, or with one that cannot be loaded, stops.', adr: ['0022'], type: 'comma-separated list', computedDefault: { authorizer: 'none: required', dispatcher: 'none: required', cli: 'none (`catalog` needs one)', migrate: 'none (the project\'s migrations only)' } },

  // Authorizer
  API_RATE_LIMIT: { description: 'Requests one credential (or address without one) may make to the approver API and console per window.', adr: ['0038'] },
  SIGN_IN_RATE_LIMIT: { description: 'Console sign-ins (each verifies a token) per address per window.', adr: ['0037', '0038'] },
  API_ADDRESS_RATE_LIMIT: { description: 'Requests one client address may make per window whatever credentials it carries.', adr: ['0038'] },
  TRUST_PROXY: { description: 'The proxies in front that may name the client (rate limits key on it): `false` when clients connect directly, a hop count (1-10), or addresses/subnets (comma-separated; `loopback`, `linklocal`, `uniquelocal`); `true` is refused.', adr: ['0038'], type: '`false`, hops or addresses', computedDefault: 'required in the production profile; `false` in the others' },
  API_RATE_WINDOW_MS: { description: 'The window of the rate limits.', adr: ['0038'] },
  CONSOLE_SESSION_TTL_MS: { description: 'A console session ends after this long, or when its token expires, whichever is first.', adr: ['0037'] },
  CONSOLE_EVENTS_POLL_MS: { description: 'How often an open console\'s event stream looks for new pending confirmations.', adr: ['0037'] },
  CONSOLE_STREAMS_PER_SESSION: { description: 'Event streams one console session may hold open at once; one more is refused with 429.', adr: ['0037'] },
  CONSOLE_TOKEN_SIGN_IN: { description: 'Whether the console takes a pasted approver token (`POST /console/session`); off: 403 `token_sign_in_disabled`, approvers sign in through an OpenID provider (a trusted issuer\'s `oidc`).', adr: ['0037', '0071'] },
  CONSOLE_DEV_ISSUER: { description: 'Development profile only: the trusted EdDSA issuer the console\'s dev sign-in mints tokens as.', adr: ['0037'] },
  CONSOLE_DEV_ISSUER_KEY: { description: 'Development profile only: that issuer\'s Ed25519 private key (PEM).', adr: ['0037'], secret: true },
  NOTIFY_WEBHOOK_URL: { description: 'Approver notifications: the webhook POSTed when a confirmation is parked and before it expires (ids, tool, tenant, a link; no payload, no token); unset: none are sent.', adr: ['0070'] },
  NOTIFY_WEBHOOK_SECRET: { description: 'The HMAC-SHA256 key of the `Arvis-Signature` header of each notification (at least 32 characters); required with NOTIFY_WEBHOOK_URL.', adr: ['0070'], secret: true },
  CONSOLE_PUBLIC_URL: { description: 'The approver console\'s public URL (as approvers open it, path prefix included): the link in each notification; required with NOTIFY_WEBHOOK_URL.', adr: ['0070'] },
  NOTIFY_BEFORE_EXPIRY_MS: { description: 'A second notification is sent when a confirmation still waits this long before it expires.', adr: ['0070'] },
  NOTIFY_POLL_MS: { description: 'How often the authorizer looks for notifications to enqueue and send.', adr: ['0070'] },
  NOTIFY_MAX_ATTEMPTS: { description: 'Attempts per notification before it is given up (recorded, and logged).', adr: ['0070'] },
  NOTIFY_BACKOFF_MS: { description: 'The wait after a first failed attempt; it doubles after each further one, up to 5 minutes.', adr: ['0070'] },
  NOTIFY_TIMEOUT_MS: { description: 'How long one webhook attempt may take.', adr: ['0070'] },
  NOTIFY_LEASE_MS: { description: 'How long a replica that claimed a notification holds it: if it dies mid-send, another replica sends it (same delivery id) once this lapses. Must be longer than NOTIFY_TIMEOUT_MS.', adr: ['0070', '0086'] },
  CONSOLE_DEV_TENANT: { description: 'Development profile only: the tenant of the dev approver.', adr: ['0037'] },
  MAX_DECISION_BYTES: { description: 'A larger decision message is dead-lettered unread.', adr: ['0003'] },
  TRUSTED_ISSUERS: { description: 'JSON list, one entry per identity provider: `{issuer, alg, tenants}` and one key source (`publicKey`, `jwksFile`, `jwksUri`), optional rules (docs/identity.md); `oidc` `{clientId, clientSecretFile, redirectUri, scope}` for console sign-in through that provider (docs/approver-console.md).', adr: ['0030', '0031', '0035', '0071'], secret: true, type: 'JSON list' },
  ALLOW_HS256_IDENTITY: { description: 'Accepts HS256 (shared secret) issuers; refused in the production profile.', adr: ['0030'] },
  JWT_CLOCK_SKEW_S: { description: 'Clock skew allowed on `exp`, `nbf` and `iat`.', adr: ['0030'] },
  IDENTITY_CACHE_MAX_ENTRIES: { description: 'Verified tokens kept by SHA-256, so a token carried by many decisions is verified once; 0 turns the cache off.', adr: ['0047'] },
  CONFIRMATION_REQUEST_TTL_MS: { description: 'How long a parked decision waits for an approver.', adr: ['0013'] },
  CONFIRMATION_GRANT_TTL_MS: { description: 'How long an approval stays usable.', adr: ['0013'] },
  RESULT_WAIT_MAX_S: { description: 'Longest `GET /decisions/{id}?waitS=` long poll granted; a larger ask waits this long (0: no waiting).', adr: ['0072'] },
  RESULT_POLL_MS: { description: 'Interval of the one shared poller that answers every waiting `GET /decisions/{id}?waitS=` (one statement per interval for all of them, none with nobody waiting).', adr: ['0072'] },
  RESULT_MAX_WAITERS: { description: 'Most long polls one authorizer holds at once; past it a request is answered at once with what there is.', adr: ['0072'] },
  // The MCP front door (apps/mcp)
  MCP_RESOURCE_URI: { description: 'This server\'s own URI as agents reach it, path `/mcp`: the only `aud` a caller\'s token may carry, and the same value as each issuer\'s `audience.decisions` in the authorizer\'s TRUSTED_ISSUERS (doctor checks). https in production (http only for a loopback host).', adr: ['0074'] },
  MCP_ISSUERS: { description: 'JSON list of the issuers whose tokens the front door accepts, `{issuer, alg, publicKey | jwksUri}` (EdDSA, ES256, RS256); named in its protected-resource metadata as `authorization_servers`.', adr: ['0074'], type: 'JSON list', fromFile: true },
  AUTHORIZER_URL: { description: 'The authorizer\'s API (its HTTP_PORT), where the front door reads results (`GET /decisions/{id}`) with the caller\'s token; doctor compares it with the authorizer\'s configuration.', adr: ['0072', '0074'] },
  MCP_RESULT_WAIT_S: { description: 'How long a tools/call waits for its decision\'s final entry before it answers `pending` (the authorizer grants at most its RESULT_WAIT_MAX_S per poll; longer waits poll again).', adr: ['0074'] },
  MCP_CONFIRMATION_WAIT_S: { description: 'The same for a tool that needs a human confirmation: short, since it will not end within a call; it still catches an immediate refusal.', adr: ['0074'] },
  MCP_DEFAULT_RISK_SCORE: { description: 'The riskScore of a decision whose tools/call sets none (`_meta["arvis/riskScore"]`); the authorizer refuses one above the tool\'s maxRisk.', adr: ['0074'], type: 'number' },
  CONFIRMATION_POLL_MS: { description: 'How often parked decisions whose confirmation was decided or expired are resumed; idle, in a process with a relay, the period doubles up to IDLE_POLL_MAX_MS (a decision wakes it by NOTIFY, the next expiry by a timer).', adr: ['0013', '0059'] },
  RETRY_POLL_MS: { description: 'How often the retry worker looks for due retry rows to submit as new decisions; a row not yet due is waited for by a timer; idle, in a process with a relay, the period doubles up to IDLE_POLL_MAX_MS (a new row wakes it by NOTIFY).', adr: ['0012', '0076', '0059'] },
  RETENTION_ENABLED: { description: 'Retention passes (they delete records an operator may have to keep: off unless asked for).', adr: ['0041'] },
  RETENTION_DECISIONS_MS: { description: 'Intents, capabilities and finished effects of decisions whose final entry is older than this are pruned.', adr: ['0041'] },
  RETENTION_DEDUPE_MS: { description: 'Inbox rows, confirmations, retries and effects holding their key older than this are pruned; at least RETENTION_DECISIONS_MS.', adr: ['0041'] },
  RETENTION_PRUNE_BATCH: { description: 'Rows deleted per retention statement.', adr: ['0041'] },
  RETENTION_PRUNE_INTERVAL_MS: { description: 'How often a retention pass runs.', adr: ['0041'] },
  INTENT_SIGNING_KEY_ID: { description: 'Key id of the intent signing key; the dispatchers look it up in INTENT_VERIFICATION_KEYS.', adr: ['0006'] },
  INTENT_SIGNING_KEY: { description: 'Ed25519 private key (PEM or base64 pkcs8 DER) signing every intent; `arvis keys generate intent` makes one.', adr: ['0006'], secret: true },

  // Dispatcher
  DISPATCHER_ID: { description: 'This dispatcher\'s name on its claims and heartbeats (recovery tells live claims from dead ones by it); unique per process.', adr: ['0007', '0011'], computedDefault: '`<hostname>-<pid>`' },
  MAX_INTENT_BYTES: { description: 'A larger intent message is dead-lettered unread.', adr: ['0003'] },
  TOOL_CONCURRENCY: { description: 'Tool bodies run at once per group of a slice.', adr: ['0007', '0050'] },
  TOOL_DATABASE_POOL_SIZE: { description: 'Connections of each tool pool.', adr: ['0034'] },
  TOOL_DATABASE_URL: { description: 'The tool bodies\' connections for packages not in TOOL_DATABASE_URLS.', adr: ['0034'], secret: true, computedDefault: 'DATABASE_URL' },
  TOOL_DATABASE_URLS: { description: 'Per tool package, JSON `{"<package name>": "postgresql://…"}`: each package\'s bodies log in as its own role.', adr: ['0034'], secret: true, type: 'JSON object' },
  INTENT_VERIFICATION_KEYS: { description: 'JSON `{"<keyId>": "<Ed25519 public key PEM>"}`: the intent signing keys accepted (several during a rotation, docs/keys.md).', adr: ['0006'], fromFile: true, type: 'JSON object' },
  RECOVERY_INTERVAL_MS: { description: 'How often recovery looks for started effects past their deadline and undelivered intents.', adr: ['0011'] },
  EFFECT_MAX_OVERRUN_MS: { description: 'How long past its deadline a timed-out or lost body may still act: until then an operator cannot resolve its unknown effect as not happened.', adr: ['0056'] },
  RECOVERY_GRACE_MS: { description: 'Added to a tool\'s timeout: past it, a started effect without a result is `effect_state_unknown`.', adr: ['0011'] },
  RECOVERY_PENDING_GRACE_MS: { description: 'A claimed capability whose body has not started, without its dispatcher\'s heartbeat for this long, is ended `effect_not_started`.', adr: ['0007', '0011'] },
  RECORD_RESULTS_MAX_WAIT_MS: { description: 'How long recording a slice\'s results waits out a database outage before marking them audit-incomplete.', adr: ['0016'] },
  REDELIVER_AFTER_MS: { description: 'An accepted intent still not consumed after this long is delivered again (doubled at each redelivery).', adr: ['0011'] },
  REDELIVER_MAX_ATTEMPTS: { description: 'Redeliveries before an intent never activated is ended as `capability_activation_failed`.', adr: ['0011'] },
  RETRY_MAX_ATTEMPTS: { description: 'Total attempts of one logical action (the first plus its retries), for a tool whose retry policy names none.', adr: ['0012', '0076'] },
  RETRY_MAX_RISK: { description: 'A decision above this risk score is not retried automatically.', adr: ['0012'] },
  ACCEPTED_CATALOG_FINGERPRINTS: { description: 'Previous catalog fingerprints still run during a rolling upgrade: a JSON list or comma-separated.', adr: ['0023'], type: 'list of SHA-256 hex' },
  DISPATCHER_POOLS: { description: 'The tool pools this dispatcher serves: it consumes each pool\'s intents topic in that pool\'s consumer group (`<KAFKA_GROUP_ID>.pool.<name>`; the shared pool keeps KAFKA_GROUP_ID) and refuses to start with a package of another pool, or a pool none of its packages is in.', adr: ['0081'], type: 'comma-separated list', computedDefault: 'shared' },

  // CLI
  JOURNAL_CHECKPOINT_VERIFICATION_KEYS: { description: 'JSON `{"<keyId>": "<Ed25519 public key PEM>"}` of the checkpoint signing keys (`verify --from-topic`).', adr: ['0025', '0026'], fromFile: true, type: 'JSON object' },
  ADMIN_URL: { description: 'The authorizer\'s base URL for `cli admin`.', adr: ['0036'] },
  ADMIN_TOKEN: { description: 'The operator\'s bearer token (admin role) for `cli admin`.', adr: ['0036'], secret: true },

  // Scripts
  ARVIS_DB_ROLE_PREFIX: { description: 'Prefix of the database roles `npm run migrate` creates (roles are cluster-wide: one prefix per deployment sharing a cluster).', adr: ['0034'] },
  JOURNAL_SHARDS: { description: 'Hash chains the journal is split into, one head each (shard 0 is `main`); a run\'s entries all go to the chain of its (tenant, runId). `npm run migrate` creates the missing heads and refuses a smaller count than the database has; stop the services first.', adr: ['0062'] },
  TOPIC_PARTITIONS: { description: 'Partitions of each topic `npm run topics` creates.', adr: ['0043'] },
  JOURNAL_RETENTION_MS: { description: 'Retention of the journal topic; -1 keeps it without a time limit.', adr: ['0025'] },
  KAFKA_TOPIC_REPLICATION_FACTOR: { description: 'Replicas of each topic (3 in production).', adr: kafka },
  KAFKA_TOPIC_MIN_INSYNC_REPLICAS: { description: 'With acks=all, a send is stored on at least this many replicas (2 in production); at most the replication factor.', adr: kafka },
  KAFKA_RESULT_READERS: { description: 'Tenant -> the principals that may read its result topic, e.g. `{"acme": ["User:agent-acme"]}`: LITERAL Read on that one topic and the `arvis-result-watcher-` groups; every tenant must be in RESULT_TOPIC_TENANTS.', adr: ['0033', '0073'], type: 'JSON object' },
  KAFKA_ACL_PRINCIPALS: { description: 'Role -> principals, e.g. `{"producer": ["User:agent-a"]}`; roles left out keep `User:<role>`.', adr: kafka, type: 'JSON object' },
  TOOL_POOLS: {
    description: 'The dispatcher pools besides `shared` (ADR 0080), comma-separated: the pools the tool packages name. `npm run topics` creates each pool\'s intents topic, `<prefix>arvis.intents.pool.<name>`, with TOPIC_PARTITIONS like the intents topic; `npm run kafka:acls` and `arvis doctor` give each pool\'s dispatchers their own role, `dispatcher-<name>` (principal `User:dispatcher-<name>` unless KAFKA_ACL_PRINCIPALS names it), reading only that topic and the group `<DISPATCHER_GROUP_ID>.pool.<name>`.',
    adr: ['0080'],
    type: 'comma-separated list',
  },
  AUTHORIZER_GROUP_ID: { description: 'The authorizer\'s KAFKA_GROUP_ID, for its ACL.', adr: kafka },
  DISPATCHER_GROUP_ID: { description: 'The dispatcher\'s KAFKA_GROUP_ID, for its ACL.', adr: kafka },
  DEMO_ISSUER: { description: 'The demo\'s trusted issuer (`node dist/scripts/local-env.js` prints it).' },
  DEMO_ISSUER_KEY: { description: 'The demo issuer\'s Ed25519 private key (PEM).', secret: true },
  DEMO_DECISIONS: { description: 'Notes the demo producer appends.' },
  DEMO_TIMEOUT_MS: { description: 'How long the demo producer waits for the final entries.' },
  DEMO_CHECKPOINT_WAIT_MS: { description: 'How long to wait, after the last final entry, for a signed checkpoint covering it (0: not at all).', adr: ['0025'] },
};

/** Variables whose value may instead be read from the file named by `<NAME>_FILE`. */
export const fileBacked = (name: string): boolean => ENV_DOCS[name]?.secret === true || ENV_DOCS[name]?.fromFile === true;

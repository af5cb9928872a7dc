/**
 * Where each table would live in a distributed PostgreSQL of the Citus kind (ADR 0067). Nothing
 * here runs against Citus: it is the decision a deployment applies, and what
 * test/every-unique-key-of-a-distributed-table-holds-its-distribution-column.e2e-spec.ts checks
 * against the migrated schema. Every table the migrations create is named here, so a new table
 * cannot arrive without a decision. A tool package's own tables (`_arvis_tool_tables`) are the
 * package's decision, not this map's (ADR 0067, "Tool tables").
 */
export type Colocation = 'tenant' | 'chain' | 'console_session';

export type Placement =
  /** Sharded by `column`; tables of one `colocation` group keep equal values on one node. */
  | { readonly kind: 'distributed'; readonly column: string; readonly colocation: Colocation }
  /** Small and global: a copy on every node, written everywhere at once. */
  | { readonly kind: 'reference' }
  /** On the coordinator only, never sharded. */
  | { readonly kind: 'local' };

const byTenant: Placement = { kind: 'distributed', column: 'tenant', colocation: 'tenant' };
const byChain: Placement = { kind: 'distributed', column: 'chain', colocation: 'chain' };
const reference: Placement = { kind: 'reference' };
const local: Placement = { kind: 'local' };

export const DISTRIBUTION: Readonly<Record<string, Placement>> = {
  // One tenant's decision, end to end: its inbox row, intent, capability, effect, confirmation,
  // run flag, retries and the gate data it is checked against.
  decision_inbox: byTenant,
  intents: byTenant,
  capabilities: byTenant,
  effects: byTenant,
  confirmations: byTenant,
  runs: byTenant,
  retries: byTenant,
  consent_grants: byTenant,
  egress_policies: byTenant,
  // A confirmation's webhook notifications (ADR 0070).
  approver_notifications: byTenant,
  // A chain's entries with the head row whose lock orders them (ADR 0062), its checkpoints and
  // its retention horizon.
  journal: byChain,
  journal_head: byChain,
  journal_checkpoints: byChain,
  retention_horizon: byChain,
  // Found by the cookie's hash alone, joined only with revoked_sessions (a reference table).
  console_sessions: { kind: 'distributed', column: 'session_id_hash', colocation: 'console_session' },
  // Read by every node's statements, written rarely.
  store_identity: reference,
  store_rebinds: reference,
  revoked_sessions: reference,
  dead_letter_dispositions: reference,
  // The relay reads the oldest rows of all of it in one locking statement (ADR 0067, "Outbox").
  outbox: local,
  // Written on each tool package's own connection (ADR 0021), which a deployment points at the coordinator.
  tool_body_starts: local,
  // Migration bookkeeping.
  _prisma_migrations: local,
  _arvis_tool_migrations: local,
  _arvis_tool_tables: local,
};

/** The distributed tables and their columns. */
export function distributedTables(): { table: string; column: string; colocation: Colocation }[] {
  return Object.entries(DISTRIBUTION).flatMap(([table, p]) => (p.kind === 'distributed' ? [{ table, column: p.column, colocation: p.colocation }] : []));
}

export { Database, type Tx } from './database';
export { SERVICE_SESSION_OPTIONS } from './session-options';
export { inPgTransaction, preparedQuery, TransactionTimeoutError, type SqlClient } from './pg-transaction';
export { pipelined } from './pipelined-statements';
export { lastStatementOn, NeedsTransaction, OneStatementWriter } from './one-statement-writer';
export { readAcceptedStores, readStoreFingerprint, StoreFingerprint, fingerprintOf, STORE_IDENTITY_SQL, type StoreIdentityRow } from './store-fingerprint';
export { applyMigrations, dropDatabase, ensureDatabase, listMigrations, MigrationError, type MigrationReport } from './migrations/apply-migrations';
export { applyToolMigrations, type MigratingPackage, type ToolMigrationReport } from './migrations/apply-tool-migrations';
// Types only: a value export would load the Prisma client in every process (ADR 0051).
export type { Prisma } from './generated/prisma/client';
export { insertParts, insertRows, rowsPart, unnestOf, type BuiltPart, type ColumnMap, type InsertPart, type PgArrayType } from './insert-rows';
export { databaseFaultOf, handlePoolErrors, handleClientErrors, isDatabaseUnavailable, untilDatabaseAnswers, type DatabaseFault } from './pg-errors';
export { PersistenceModule } from './persistence.module';
export {
  applyDatabaseRoles,
  componentRole,
  DEFAULT_ROLE_PREFIX,
  PROJECT_GRANTS,
  PROJECT_TABLES,
  ROLE_PREFIX_PATTERN,
  toolRoleName,
  type Component,
  type Privilege,
  type RolesReport,
} from './migrations/database-roles';
export { DISTRIBUTION, distributedTables, type Colocation, type Placement } from './distribution';

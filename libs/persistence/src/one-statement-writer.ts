import type { SqlClient } from './pg-transaction';

/** A OneStatementWriter was asked for a statement before its last one: nothing was run. */
export class NeedsTransaction extends Error {
  constructor() {
    super('this work takes more than one statement: do it again in a transaction');
    this.name = 'NeedsTransaction';
  }
}

// A statement method fails as a statement would: its promise rejects.
const refuse = (): Promise<never> => Promise.reject(new NeedsTransaction());

/**
 * For work that usually writes with one statement (a slice of allowed decisions: ADR 0049): that
 * statement, run on its own, commits by itself, which saves the BEGIN and the COMMIT, two round
 * trips of every lone decision. The writer runs nothing but the statement its caller marks as the
 * work's last (`last`, once); any other statement throws NeedsTransaction before it runs, and the
 * caller does the work again in a transaction. So it either ran one whole statement or nothing.
 */
export class OneStatementWriter implements SqlClient {
  private spent = false;

  constructor(private readonly sql: SqlClient) {}

  readonly $queryRaw: SqlClient['$queryRaw'] = refuse;
  readonly $executeRaw: SqlClient['$executeRaw'] = refuse;
  readonly $queryRawUnsafe: SqlClient['$queryRawUnsafe'] = refuse;
  readonly $executeRawUnsafe: SqlClient['$executeRawUnsafe'] = refuse;

  /** The work's last statement, autocommitted; asked for twice, it refuses like any other. */
  get last(): SqlClient {
    if (this.spent) throw new NeedsTransaction();
    this.spent = true;
    return this.sql;
  }
}

/** The client for the work's last statement: a OneStatementWriter's one statement, or the transaction itself. */
export const lastStatementOn = (tx: SqlClient): SqlClient => (tx instanceof OneStatementWriter ? tx.last : tx);

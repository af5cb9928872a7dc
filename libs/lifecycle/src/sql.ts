import type { Tx } from '@arvis/persistence';

/** What a store needs to run statements: a transaction, or the client itself for one statement. */
export type Sql = Pick<Tx, '$queryRaw' | '$executeRaw'>;

/** Throws when a state transition moved a different number of rows than the caller proved it must. */
export function expectMoved(what: string, moved: number, expected: number): void {
  if (moved !== expected) throw new Error(`${what}: moved ${moved} row(s), expected ${expected}`);
}

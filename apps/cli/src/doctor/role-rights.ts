import type { Client } from 'pg';
// The grant table itself, not @arvis/persistence's index: that loads Prisma's client, which the
// packed CLI does not ship (this module needs only pg).
import { PROJECT_GRANTS, PROJECT_TABLES, type Component, type Privilege } from '../../../../libs/persistence/src/migrations/database-roles';
import { fail, ok, skip, type Check } from './checks';

const PRIVILEGES: readonly Privilege[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

/** What a login holds on the project's tables, as PostgreSQL answers has_table_privilege. */
export interface HeldRights {
  user: string;
  superuser: boolean;
  /** Table -> the privileges the login has on it (tables the database lacks are left out). */
  tables: Map<string, Set<Privilege>>;
}

const list = (pairs: string[]) => (pairs.length > 6 ? `${pairs.slice(0, 6).join(', ')} and ${pairs.length - 6} more` : pairs.join(', '));

/**
 * A service's login against the grants `npm run migrate` gives its role (ADR 0034): a right it
 * lacks is a statement refused at run time (42501); one it has beyond them is what a compromised
 * process could do besides its work. A superuser holds everything: named, as a skip.
 */
export function compareRights(component: Component, held: HeldRights): Check {
  const name = `database rights (${component})`;
  // Not a broken deployment (the demo and the tests log in so), but not least privilege either: said, not failed.
  if (held.superuser) return skip(name, `connects as ${held.user}, a superuser: every right on every table, not the ${component}'s own role (npm run migrate creates it)`);
  const expected = PROJECT_GRANTS[component];
  const missing: string[] = [];
  const extra: string[] = [];
  for (const [table, has] of held.tables) {
    const want = new Set(expected[table] ?? []);
    for (const p of PRIVILEGES) {
      if (want.has(p) && !has.has(p)) missing.push(`${p} on ${table}`);
      if (!want.has(p) && has.has(p)) extra.push(`${p} on ${table}`);
    }
  }
  const problems = [
    ...(missing.length ? [`${held.user} lacks ${list(missing)}: those statements would be refused (npm run migrate grants them)`] : []),
    ...(extra.length ? [`${held.user} may also ${list(extra)}: more than the ${component} needs`] : []),
  ];
  return problems.length ? fail(name, problems.join('; ')) : ok(name, `${held.user} has exactly the ${component}'s rights on ${held.tables.size} tables`);
}

/** One statement: every project table this database has, by every privilege. */
export async function heldRights(client: Client): Promise<HeldRights> {
  const who = await client.query<{ user: string; superuser: boolean }>('SELECT current_user AS user, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user');
  const { rows } = await client.query<{ t: string; p: Privilege; has: boolean }>(
    `SELECT t, p, has_table_privilege(current_user, t, p) AS has
     FROM unnest($1::text[]) AS t CROSS JOIN unnest($2::text[]) AS p
     WHERE to_regclass(t) IS NOT NULL`,
    [[...PROJECT_TABLES], [...PRIVILEGES]],
  );
  const tables = new Map<string, Set<Privilege>>();
  for (const r of rows) {
    const set = tables.get(r.t) ?? new Set<Privilege>();
    if (r.has) set.add(r.p);
    tables.set(r.t, set);
  }
  return { user: who.rows[0].user, superuser: who.rows[0].superuser, tables };
}

import { z } from 'zod';
import { assembleTools, defineTool } from '@arvis/tool-catalog';
import type { AuthorizedEffectContext } from '@arvis/effect-context';
import { BodyStartFencedError, toolBodies, type ToolInvocation } from './tool-body';
import type { ToolDatabase } from './tool-database';

/** Records each statement and answers with one row, like the tools' own pool would. */
function fakeDatabase() {
  const statements: { sql: string; params: unknown[] }[] = [];
  const db = {
    query: async (sql: string, params: unknown[]) => {
      statements.push({ sql, params });
      return { rows: [{ id: '7' }], rowCount: 1 };
    },
  };
  return { db: db as unknown as ToolDatabase, statements };
}

const tool = defineTool({
  name: 'test.write',
  description: 'writes one row',
  input: z.strictObject({ text: z.string() }),
  output: z.strictObject({ id: z.string() }),
  idempotent: false,
  retryable: false,
  sideEffectful: true,
  timeoutMs: 1000,
  maxRisk: 1,
  requiresConfirmation: false,
  auditRequired: false,
  reversible: true,
  manifest: { provider: null, dataEgress: false, dataClass: 'test', requiredConsent: null },
  async execute({ input, db }) {
    const { rows } = await db.query<{ id: string }>('INSERT INTO t (text) VALUES ($1) RETURNING id', [input.text]);
    return { id: rows[0].id };
  },
  async reconcile({ idempotencyKey, db }) {
    await db.query('SELECT 1 FROM t WHERE k = $1', [idempotencyKey]);
    return { found: 'none' };
  },
});

const MARKER_SQL = 'INSERT INTO tool_body_starts (capability_id, tool) SELECT * FROM unnest($1::text[], $2::text[])';

const invocation: ToolInvocation = {
  input: { text: 'x' },
  effectContext: { tenant: 'acme', principal: 'alice' } as unknown as AuthorizedEffectContext,
  idempotencyKey: 'idem:1',
  signal: new AbortController().signal,
  capabilityId: 'cap-1',
  decisionId: 'd-1',
  heartbeat: () => {},
  attempt: 1,
  logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
};

// The chaos suite (ADR 0021) tells an unknown effect that may have acted from one that cannot
// have, by this marker: it must come before the body's first statement, committed on its own.
describe('a package tool bound to the tools pool', () => {
  it('inserts into tool_body_starts before its body runs, then runs the body on the same pool', async () => {
    const { db, statements } = fakeDatabase();
    const [body] = toolBodies(assembleTools([{ name: 'p', version: '1', tools: [tool] }]), () => db);
    await expect(body.execute(invocation)).resolves.toEqual({ id: '7' });
    expect(statements).toEqual([
      { sql: MARKER_SQL, params: [['cap-1'], ['test.write']] },
      { sql: 'INSERT INTO t (text) VALUES ($1) RETURNING id', params: ['x'] },
    ]);
  });

  it('hands reconciliation the same pool, and writes no marker for a lookup', async () => {
    const { db, statements } = fakeDatabase();
    const [body] = toolBodies(assembleTools([{ name: 'p', version: '1', tools: [tool] }]), () => db);
    await expect(body.reconcile!({ idempotencyKey: 'idem:1', capabilityId: 'cap-1' })).resolves.toEqual({ found: 'none' });
    expect(statements.map((s) => s.sql)).toEqual(['SELECT 1 FROM t WHERE k = $1']);
  });

  it('writes the markers of bodies started together as one statement, before any of them acts', async () => {
    const { db, statements } = fakeDatabase();
    const [body] = toolBodies(assembleTools([{ name: 'p', version: '1', tools: [tool] }]), () => db);
    const ids = ['cap-1', 'cap-2', 'cap-3'];
    await Promise.all(ids.map((capabilityId) => body.execute({ ...invocation, capabilityId })));
    expect(statements.map((s) => s.sql)).toEqual([MARKER_SQL, ...ids.map(() => 'INSERT INTO t (text) VALUES ($1) RETURNING id')]);
    expect(statements[0].params).toEqual([ids, ids.map(() => 'test.write')]);
  });

  it('fails every body of a marker statement that failed, and none of them acts', async () => {
    const statements: string[] = [];
    const db = {
      query: async (sql: string) => {
        statements.push(sql);
        if (sql === MARKER_SQL) throw new Error('connection terminated');
        return { rows: [{ id: '7' }], rowCount: 1 };
      },
    } as unknown as ToolDatabase;
    const [body] = toolBodies(assembleTools([{ name: 'p', version: '1', tools: [tool] }]), () => db);
    const outcomes = await Promise.allSettled(['cap-1', 'cap-2'].map((capabilityId) => body.execute({ ...invocation, capabilityId })));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(statements).toEqual([MARKER_SQL]);
  });

  // Recovery took cap-2's slot (ADR 0056): the group's statement conflicts and writes nothing; the
  // markers are then written one by one, and only the fenced body does not run.
  it('runs no body whose start slot recovery took, and the others of its statement as usual', async () => {
    const statements: string[] = [];
    const db = {
      query: async (sql: string, params: unknown[]) => {
        statements.push(sql);
        if (sql === MARKER_SQL && (params[0] as string[]).includes('cap-2')) throw Object.assign(new Error('duplicate key'), { code: '23505' });
        if (sql.includes('ON CONFLICT DO NOTHING')) return { rows: [], rowCount: params[0] === 'cap-2' ? 0 : 1 };
        return { rows: [{ id: '7' }], rowCount: 1 };
      },
    } as unknown as ToolDatabase;
    const [body] = toolBodies(assembleTools([{ name: 'p', version: '1', tools: [tool] }]), () => db);
    const outcomes = await Promise.allSettled(['cap-1', 'cap-2'].map((capabilityId) => body.execute({ ...invocation, capabilityId })));
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { id: '7' } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: expect.any(BodyStartFencedError) });
    expect(statements.filter((s) => s.startsWith('INSERT INTO t ('))).toHaveLength(1);
  });
});

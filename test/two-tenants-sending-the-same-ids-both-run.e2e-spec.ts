import { retryDecisionId } from '@arvis/contracts';
import type { DecisionInput } from '@arvis/decision-client';
import { sharedEnvironment } from './support/environment';
import { Harness } from './support/harness';

// A valid token of one tenant must not take another tenant's ids (issue 17, item 3; ADR 0061).
// Globex sends first, with the predictable ids a shell producer makes; acme's genuine decision
// with the same ids must still run, and each final entry names its own tenant.
describe('two tenants sending the same ids', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await new Harness(sharedEnvironment()).start();
  });
  afterAll(() => h.close());

  const stamp = Date.now().toString(36);
  const decisionOf = (over: Partial<DecisionInput> & Pick<DecisionInput, 'decisionId' | 'runId' | 'causalId' | 'identity'>): DecisionInput => ({
    tool: 'notes.append',
    payload: { text: `from ${over.decisionId}`, ref: `${over.decisionId}:${over.identity.slice(-8)}` },
    riskScore: 0.1,
    ...over,
  });

  /** Final rows in the table for this producer id, as [tenant, principal, kind, outcome]. */
  async function finals(decisionId: string) {
    const rows = await h.query<{ tenant: string; principal: string; kind: string; reason_code: string | null; effect_boundary: string }>(
      `SELECT tenant, entry::jsonb->>'principal' AS principal, kind, reason_code, effect_boundary FROM journal WHERE decision_id = $1 AND final_decision_id IS NOT NULL ORDER BY tenant`,
      [decisionId],
    );
    return rows.map((r) => [r.tenant, r.principal, r.kind, r.reason_code ?? r.effect_boundary]);
  }
  const conflictsAbout = (decisionId: string) =>
    h.journal.deadLetters.filter((r) => r.reasonCode === 'decision_conflict' && ((r as { decisionId?: string }).decisionId === decisionId || r.detail.includes(decisionId)));

  /** Sends globex's decision, waits for its end, then acme's, and waits until acme's ended or was dead-lettered. */
  async function globexThenAcme(globex: DecisionInput, acme: DecisionInput) {
    await h.client.send([globex]);
    await h.waitUntil('globex decision to end', async () => (await finals(globex.decisionId)).some((f) => f[0] === 'globex'));
    await h.client.send([acme]);
    await h.waitUntil('acme decision to end or be dead-lettered', async () => {
      return (await finals(acme.decisionId)).some((f) => f[0] === 'acme') || conflictsAbout(acme.decisionId).length > 0;
    });
  }

  it("runs acme's decision X after globex sent X first; each final entry names its own tenant", async () => {
    const globexToken = await h.token({ tenant: 'globex', principal: 'mallory', serviceId: 'agent-g' });
    const acmeToken = await h.token({ tenant: 'acme', principal: 'alice', serviceId: 'agent-1' });
    const x = `run-${stamp}-4242:d1`;
    const globex = decisionOf({ decisionId: x, runId: `g-${stamp}`, causalId: 'c-g', identity: globexToken });
    const acme = decisionOf({ decisionId: x, runId: `a-${stamp}`, causalId: 'c-a', identity: acmeToken });
    await globexThenAcme(globex, acme);

    expect(conflictsAbout(x)).toEqual([]);
    expect(await finals(x)).toEqual([
      ['acme', 'alice', 'tool_result', 'effect_completed'],
      ['globex', 'mallory', 'tool_result', 'effect_completed'],
    ]);
  });

  it('runs both when the two tenants send X with one runId and causalId together (one partition, likely one slice)', async () => {
    const globexToken = await h.token({ tenant: 'globex', principal: 'mallory', serviceId: 'agent-g' });
    const acmeToken = await h.token({ tenant: 'acme', principal: 'alice', serviceId: 'agent-1' });
    const runId = `run-${stamp}-4545`;
    const x = `${runId}:d1`;
    await h.client.send([
      decisionOf({ decisionId: x, runId, causalId: 'c1', identity: globexToken }),
      decisionOf({ decisionId: x, runId, causalId: 'c1', identity: acmeToken }),
    ]);
    await h.waitUntil('both decisions to end', async () => (await finals(x)).length === 2);
    expect(conflictsAbout(x)).toEqual([]);
    expect(await finals(x)).toEqual([
      ['acme', 'alice', 'tool_result', 'effect_completed'],
      ['globex', 'mallory', 'tool_result', 'effect_completed'],
    ]);
    expect(await h.query("SELECT tenant, status FROM decision_inbox WHERE decision_id = $1 ORDER BY tenant", [x])).toEqual([
      { tenant: 'acme', status: 'authorized' },
      { tenant: 'globex', status: 'authorized' },
    ]);
  });

  it("runs acme's decision after globex used the same runId and causalId (the shell example's CAUSAL_ID=c1)", async () => {
    const globexToken = await h.token({ tenant: 'globex', principal: 'mallory', serviceId: 'agent-g' });
    const acmeToken = await h.token({ tenant: 'acme', principal: 'alice', serviceId: 'agent-1' });
    const runId = `run-${stamp}-4343`;
    const globex = decisionOf({ decisionId: `${runId}:g1`, runId, causalId: 'c1', identity: globexToken });
    const acme = decisionOf({ decisionId: `${runId}:a1`, runId, causalId: 'c1', identity: acmeToken });
    await globexThenAcme(globex, acme);

    expect(await finals(globex.decisionId)).toEqual([['globex', 'mallory', 'tool_result', 'effect_completed']]);
    expect(await finals(acme.decisionId)).toEqual([['acme', 'alice', 'tool_result', 'effect_completed']]);
  });

  it("retries each tenant's failed decision X in its own chain: both retries run", async () => {
    const globexToken = await h.token({ tenant: 'globex', principal: 'mallory', serviceId: 'agent-g' });
    const acmeToken = await h.token({ tenant: 'acme', principal: 'alice', serviceId: 'agent-1' });
    const x = `run-${stamp}-4444:d1`;
    const flaky = (identity: string, runId: string): DecisionInput =>
      decisionOf({ decisionId: x, runId, causalId: 'c1', identity, tool: 'flaky.record', payload: { key: `k-${stamp}`, failTimes: 1 } });
    await globexThenAcme(flaky(globexToken, `g-${stamp}-r`), flaky(acmeToken, `a-${stamp}-r`));
    // The retry's id is derived from its chain (the parent's id): the same for both tenants, and each tenant's own.
    const retryId = retryDecisionId(x, 1);
    await h.waitUntil('both retries to end', async () => (await finals(retryId)).length === 2);
    expect(conflictsAbout(x)).toEqual([]);
    expect(await finals(x)).toEqual([
      ['acme', 'alice', 'tool_result', 'tool_execution_failed'],
      ['globex', 'mallory', 'tool_result', 'tool_execution_failed'],
    ]);
    expect(await finals(retryId)).toEqual([
      ['acme', 'alice', 'tool_result', 'effect_completed'],
      ['globex', 'mallory', 'tool_result', 'effect_completed'],
    ]);
    expect(await h.query('SELECT tenant, attempt FROM retries WHERE chain_id = $1 ORDER BY tenant', [x])).toEqual([
      { tenant: 'acme', attempt: 1 },
      { tenant: 'globex', attempt: 1 },
    ]);
  });

  it("refuses a producer's decision that carries the system's retry id form", async () => {
    const token = await h.token({ tenant: 'globex', principal: 'mallory', serviceId: 'agent-g' });
    const forged = { specVersion: 1, ...decisionOf({ decisionId: `arvis.retry.${'0'.repeat(40)}.1`, runId: `r-${stamp}`, causalId: 'c1', identity: token }) };
    const at = await h.produceRaw(h.topics.decisions, forged.runId, JSON.stringify(forged));
    const deadLetterOf = () => h.journal.deadLetters.find((r) => r.sourceTopic === h.topics.decisions && r.partition === at.partition && r.offset === at.offset);
    expect(await h.journal.waitFor(() => !!deadLetterOf(), 30_000)).toBe(true);
    expect(deadLetterOf()).toMatchObject({ reasonCode: 'malformed_message' });
    expect(await finals(forged.decisionId)).toEqual([]);
  });
});

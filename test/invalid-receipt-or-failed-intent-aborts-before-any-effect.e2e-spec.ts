import { Harness } from './support/harness';
import { Stack } from './support/stack';

const TAMPERED = ['shape', 'receiptId', 'causalId', 'durablePosition', 'storeFingerprint', 'committedAt', 'intent', 'run', 'causal', 'fingerprint'] as const;
const RECEIPT_REASON: Record<(typeof TAMPERED)[number], string> = {
  shape: 'receipt_wrong_type',
  receiptId: 'receipt_missing_receipt_id',
  causalId: 'receipt_missing_causal_id',
  durablePosition: 'receipt_missing_durable_position',
  storeFingerprint: 'receipt_missing_store_fingerprint',
  committedAt: 'receipt_missing_committed_at',
  intent: 'receipt_intent_mismatch',
  run: 'receipt_run_mismatch',
  causal: 'receipt_causal_mismatch',
  fingerprint: 'receipt_store_fingerprint_mismatch',
};

// Named fault points in the intent sink (ARVIS_FAULTS, test profile), each scoped to decisions
// whose id starts with a prefix, so one authorizer process carries all of them.
describe('an invalid receipt, a reused durable position or a failed intent insert aborts before any effect', () => {
  let stack: Stack;
  let h: Harness;
  beforeAll(async () => {
    stack = await Stack.create('receipts');
    await stack.start('authorizer', 'authorizer', {
      faults: {
        receiptTamper: TAMPERED.map((field) => ({ decisionIdPrefix: `tamper-${field}:`, field })),
        receiptReusePosition: [{ decisionIdPrefix: 'reuse:' }],
        intentInsertFails: [{ decisionIdPrefix: 'insertfail:' }],
      },
    });
    await stack.start('dispatcher', 'dispatcher');
    h = await new Harness(stack.env).start();
  });
  afterAll(async () => {
    await h?.close();
    await stack?.stop();
  });

  const state = async (decisionId: string) => {
    const [row] = await h.query<Record<string, string | null>>(
      `SELECT (SELECT count(*) FROM intents WHERE decision_id = $1)::text AS intents,
              (SELECT string_agg(state || ':' || coalesce(revoked_reason, ''), ',') FROM capabilities WHERE decision_id = $1) AS capability,
              (SELECT count(*) FROM effects WHERE decision_id = $1)::text AS effects,
              (SELECT count(*) FROM notes n JOIN capabilities c USING (capability_id) WHERE c.decision_id = $1)::text AS notes`,
      [decisionId],
    );
    return row;
  };

  it('refuses each faulty receipt as invalid_audit_receipt with its receipt reason, revokes, publishes and runs nothing', async () => {
    const identity = await h.token();
    const faulty = TAMPERED.map((field, i) => ({
      decisionId: `tamper-${field}:1`,
      runId: `receipt-run-${i}`,
      causalId: 'c1',
      tool: 'notes.append',
      payload: { text: `tampered ${field}` },
      riskScore: 0.1,
      identity,
    }));
    const good = { ...faulty[0], decisionId: 'fine:1', runId: 'receipt-run-0', causalId: 'c2', payload: { text: 'fine' } };
    await h.client.send([...faulty, good]);
    const ids = [...faulty, good].map((d) => d.decisionId);
    await h.waitUntil('a final entry for each', async () => (await h.finalRows(ids)).length === ids.length);

    for (const d of faulty) {
      const [row] = await h.query<{ kind: string; reason_code: string; entry: string }>(
        'SELECT kind, reason_code, entry FROM journal WHERE final_decision_id = $1',
        [d.decisionId],
      );
      const field = d.decisionId.slice('tamper-'.length, -2) as (typeof TAMPERED)[number];
      expect({ id: d.decisionId, kind: row.kind, reason: row.reason_code, receiptReason: JSON.parse(row.entry).error.details.receiptReason }).toEqual({
        id: d.decisionId,
        kind: 'admission_refusal',
        reason: 'invalid_audit_receipt',
        receiptReason: RECEIPT_REASON[field],
      });
      expect(await state(d.decisionId)).toEqual({ intents: '0', capability: 'revoked:invalid_audit_receipt', effects: '0', notes: '0' });
    }
    // The good decision in the same slices was recorded and ran.
    expect(await state(good.decisionId)).toEqual({ intents: '1', capability: 'consumed:', effects: '1', notes: '1' });
    const published = await h.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM outbox WHERE topic = $1 AND payload LIKE '%tamper-%'`,
      [h.topics.intents],
    );
    expect(published[0].n).toBe('0');
  });

  it('refuses a reused durable position (audit_receipt_position_reused) and a failed insert (audit_intent_failed) without disturbing the rest of the slice', async () => {
    const [first] = await h.decisions('reuse-run-0', 1);
    await h.client.send([first]);
    await h.waitUntil('an accepted intent to exist', async () => (await h.finalRows([first.decisionId])).length === 1);

    const identity = await h.token();
    const base = { runId: 'reuse-run-1', tool: 'notes.append', riskScore: 0.1, identity };
    const reuse = { ...base, decisionId: 'reuse:1', causalId: 'c1', payload: { text: 'reuse' } };
    const fail = { ...base, decisionId: 'insertfail:1', causalId: 'c2', payload: { text: 'fail' } };
    const fine = { ...base, decisionId: 'fine:2', causalId: 'c3', payload: { text: 'fine 2' } };
    await h.client.send([reuse, fail, fine]);
    const ids = [reuse.decisionId, fail.decisionId, fine.decisionId];
    await h.waitUntil('a final entry for each', async () => (await h.finalRows(ids)).length === 3);

    const rows = await h.finalRows(ids);
    const by = new Map(rows.map((r) => [r.decision_id, r]));
    expect([by.get('reuse:1')?.kind, by.get('reuse:1')?.reason_code]).toEqual(['admission_refusal', 'audit_receipt_position_reused']);
    expect([by.get('insertfail:1')?.kind, by.get('insertfail:1')?.reason_code]).toEqual(['admission_refusal', 'audit_intent_failed']);
    expect([by.get('fine:2')?.kind, by.get('fine:2')?.effect_boundary]).toEqual(['tool_result', 'effect_completed']);
    expect(await state('reuse:1')).toEqual({ intents: '0', capability: 'revoked:audit_receipt_position_reused', effects: '0', notes: '0' });
    expect(await state('insertfail:1')).toEqual({ intents: '0', capability: 'revoked:audit_intent_failed', effects: '0', notes: '0' });
    // The position stays held by the intent that first had it.
    expect(await state(first.decisionId)).toEqual({ intents: '1', capability: 'consumed:', effects: '1', notes: '1' });
  });
});

import { sha256Hex } from '@arvis/crypto';
import type { ToolSpec } from '@arvis/tool-catalog';
import { DEFAULT_PAGE, MAX_PAGE, parsePageQuery, toPendingConfirmation, type PendingRow } from './pending-confirmation';

const payload = { to: 'acc-2', from: 'acc-1', amountMinor: 12500, currency: 'EUR' };
const row = (over: Partial<PendingRow> = {}): PendingRow => ({
  confirmationId: 'c-1',
  decisionId: 'd-1',
  runId: 'r-1',
  principal: 'alice',
  issuer: 'https://idp.example',
  serviceId: 'agent-1',
  tool: 'ledger.transfer',
  payloadSha256: sha256Hex('{"amountMinor":12500,"currency":"EUR","from":"acc-1","to":"acc-2"}'),
  requestedAt: new Date('2026-11-30T10:00:00.000Z'),
  expiresAt: new Date('2026-11-30T10:15:00.000Z'),
  body: JSON.stringify({ decisionId: 'd-1', payload, riskScore: 0.2 }),
  receivedAt: new Date('2026-11-30T10:00:00.000Z'),
  ...over,
});
const spec = {
  name: 'ledger.transfer',
  reversible: false,
  manifest: { provider: null, dataEgress: false, dataClass: 'financial', requiredConsent: null },
  display: { amountMinor: { kind: 'money', currencyField: 'currency' } },
} as unknown as ToolSpec;

describe('a pending confirmation as an approver sees it', () => {
  it('shows the frozen payload whose canonical text hashes to the commitment, the labels, risk and requester', () => {
    const view = toPendingConfirmation(row(), spec);
    expect(sha256Hex(view.payloadCanonical!)).toBe(view.payloadSha256);
    expect(view).toMatchObject({
      requester: { principal: 'alice', issuer: 'https://idp.example', serviceId: 'agent-1' },
      hiddenCharacters: [],
      labels: { provider: null, dataEgress: false, dataClass: 'financial', reversible: false },
      riskScore: 0.2,
      payload,
      expiresAt: '2026-11-30T10:15:00.000Z',
    });
  });

  it("renders the tool's display hints, asks for the typed name of an irreversible tool, and lists the run's earlier decisions only", () => {
    const earlier = (id: string, at: string) => ({ decisionId: id, tool: 'notes.append', receivedAt: at, kind: 'tool_result', effectBoundary: 'effect_completed', reasonCode: null });
    const run = [earlier('d-0', '2026-11-30T09:59:00.000Z'), earlier('d-1', '2026-11-30T10:00:00.000Z'), earlier('d-2', '2026-11-30T10:01:00.000Z')];
    const view = toPendingConfirmation(row(), spec, run);
    expect(view.display).toEqual([{ field: 'amountMinor', kind: 'money', exact: '12500', shown: 'EUR 125.00 (2 minor units)', problem: null }]);
    expect(view.typedConfirmation).toBe('ledger.transfer');
    expect(view.earlier.map((d) => d.decisionId)).toEqual(['d-0']);
    expect(toPendingConfirmation(row(), { ...spec, reversible: true } as ToolSpec).typedConfirmation).toBeNull();
    const many = Array.from({ length: 15 }, (_, i) => earlier(`e-${i}`, `2026-11-30T09:${String(10 + i)}:00.000Z`));
    expect(toPendingConfirmation(row(), spec, many).earlier.map((d) => d.decisionId)).toEqual(many.slice(5).map((d) => d.decisionId));
  });

  it('says what it does not know instead of guessing: no catalog entry, no body, no issuer kept', () => {
    const view = toPendingConfirmation(row({ body: null, issuer: null }), undefined);
    expect(view).toMatchObject({ labels: null, payload: null, payloadCanonical: null, riskScore: null, requester: { principal: 'alice', issuer: null } });
    expect(toPendingConfirmation(row({ body: 'not json' }), spec).payload).toBeNull();
  });

  it('flags every string that holds a direction-changing or invisible code point, in the payload, the requester and the ids', () => {
    const tricked = { ...payload, to: '\u202e2-cca\u202c' };
    const view = toPendingConfirmation(row({ body: JSON.stringify({ payload: tricked }), principal: 'al\u200bice', runId: 'r\u2066' }), spec);
    expect(view.payload).toEqual(tricked);
    expect(view.hiddenCharacters).toEqual([
      { path: '$.payload.to', codePoints: ['U+202E', 'U+202C'] },
      { path: '$.requester.principal', codePoints: ['U+200B'] },
      { path: '$.ids[1]', codePoints: ['U+2066'] },
    ]);
  });
});

describe('the list page query', () => {
  it('defaults and bounds the limit, and passes the cursor', () => {
    expect(parsePageQuery(undefined, undefined)).toEqual({ ok: true, limit: DEFAULT_PAGE, after: null });
    expect(parsePageQuery('7', 'c-9')).toEqual({ ok: true, limit: 7, after: 'c-9' });
    expect(parsePageQuery(String(MAX_PAGE), undefined)).toMatchObject({ ok: true, limit: MAX_PAGE });
  });

  it.each([['0'], [String(MAX_PAGE + 1)], ['-1'], ['1.5'], ['ten'], [['1', '2']]])('refuses limit %p', (limit) => {
    expect(parsePageQuery(limit, undefined).ok).toBe(false);
  });

  it('refuses an empty or repeated cursor', () => {
    expect(parsePageQuery(undefined, '').ok).toBe(false);
    expect(parsePageQuery(undefined, ['a', 'b']).ok).toBe(false);
  });
});

import type { Tx } from '@arvis/persistence';
import { readSlice, type SliceNeeds } from './read-slice';

// The slice's reads are one statement, and it reads a table only when the slice needs it: gate
// data only for tenants whose tools declare the gate, confirmations only when presented.
function recordingTx(row: Record<string, unknown>) {
  const statements: { text: string; params: unknown[] }[] = [];
  const tx = {
    $queryRawUnsafe: async (text: string, ...params: unknown[]) => {
      statements.push({ text, params });
      return [row];
    },
  } as unknown as Tx;
  return { tx, statements };
}

const none: SliceNeeds = { claiming: [], consentTenants: [], egressTenants: [], confirmationIds: [], sessionIds: [], positions: 0 };
const now = new Date('2026-12-01T10:00:00.000Z');

describe('readSlice', () => {
  it('reads a slice of ungated tools with one statement that names no gate table', async () => {
    const { tx, statements } = recordingTx({ now, inbox: [['acme', 'd1', 'h1']], revoked: [], positions: [12n, 11n] });
    const claiming = [{ tenant: 'acme', decisionId: 'd1' }, { tenant: 'globex', decisionId: 'd1' }, { tenant: 'acme', decisionId: 'd2' }];
    const reads = await readSlice(tx, { ...none, claiming, sessionIds: ['s-1'], positions: 2 });
    expect(statements).toHaveLength(1);
    expect(statements[0].text).not.toMatch(/consent_grants|egress_policies|confirmations/);
    expect(statements[0].text).toMatch(/decision_inbox.*revoked_sessions.*nextval/s);
    // Ids are the tenant's own (ADR 0061): the inbox is read by (id, tenant).
    expect(statements[0].params).toEqual([['d1', 'd1', 'd2'], ['acme', 'globex', 'acme'], ['s-1'], 2]);
    expect(reads).toEqual({
      now,
      inbox: new Map([[JSON.stringify(['acme', 'd1']), 'h1']]),
      consent: [],
      egress: [],
      confirmations: [],
      revokedSessions: new Set(),
      positions: [11n, 12n],
    });
  });

  it('reads the gates and the confirmations only when asked, and gives rows their types', async () => {
    const { tx, statements } = recordingTx({
      now,
      consent: [['acme', 'bob', 'email']],
      egress: [['acme', 'smtp-relay']],
      confirmations: [{ confirmationId: 'c1', tenant: 'acme', principal: 'bob', issuer: null, tool: 'mail.send', payloadSha256: 'p', status: 'approved', grantExpiresAt: '2026-12-01T10:05:00.123456+00:00' }],
    });
    const reads = await readSlice(tx, { ...none, consentTenants: ['acme'], egressTenants: ['acme'], confirmationIds: ['c1'] });
    expect(statements).toHaveLength(1);
    expect(statements[0].text).not.toMatch(/decision_inbox|revoked_sessions|nextval/);
    expect(statements[0].params).toEqual([['acme'], ['acme'], ['c1']]);
    expect(reads.consent).toEqual([{ tenant: 'acme', principal: 'bob', consentKey: 'email' }]);
    expect(reads.egress).toEqual([{ tenant: 'acme', provider: 'smtp-relay' }]);
    expect(reads.confirmations[0].grantExpiresAt).toEqual(new Date('2026-12-01T10:05:00.123Z'));
  });
});

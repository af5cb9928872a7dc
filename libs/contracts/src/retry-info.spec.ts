import { createHash } from 'node:crypto';
import { ActionDecisionSchema, retryDecisionId } from './index';

describe('retryDecisionId', () => {
  it('is arvis.retry., 40 hex characters of SHA-256(chain id), and the attempt', () => {
    const hex = createHash('sha256').update('chain-1').digest('hex').slice(0, 40);
    expect(retryDecisionId('chain-1', 2)).toBe(`arvis.retry.${hex}.2`);
  });

  it('stays within 200 characters for the longest chain ids, and differs per chain and attempt', () => {
    const long = 'x'.repeat(200);
    expect(retryDecisionId(long, 9).length).toBeLessThanOrEqual(200);
    expect(new Set([retryDecisionId('a', 1), retryDecisionId('a', 2), retryDecisionId('b', 1)]).size).toBe(3);
  });

  it('is an id no decision from outside may take', () => {
    const outside = { specVersion: 1, decisionId: retryDecisionId('c', 1), runId: 'r', causalId: 'c', tool: 't', payload: {}, riskScore: 0, identity: 'a.b.c' };
    expect(ActionDecisionSchema.safeParse(outside).success).toBe(false);
  });
});

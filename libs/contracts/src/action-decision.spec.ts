import { ActionDecisionSchema, InternalRetryDecisionSchema, RetryInfo } from './index';

const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const decision = {
  specVersion: 1,
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'c-1',
  tool: 'payments.transfer',
  payload: { amountMinor: 1250, currency: 'EUR', nested: { list: [1, 'two'] } },
  riskScore: 0.2,
  identity: jwt,
};
const retry = { attempt: 2, chainId: 'chain-1', parentCausalId: 'c-1' };

describe('ActionDecisionSchema', () => {
  it('accepts a minimal decision and defaults processId to "default"', () => {
    const parsed = ActionDecisionSchema.parse(decision);
    expect(parsed.processId).toBe('default');
    expect(parsed.confirmationId).toBeUndefined();
  });

  it('keeps an explicit processId and confirmationId', () => {
    const parsed = ActionDecisionSchema.parse({ ...decision, processId: 'billing', confirmationId: 'conf-9' });
    expect(parsed).toMatchObject({ processId: 'billing', confirmationId: 'conf-9' });
  });

  it('refuses unknown fields', () => {
    expect(ActionDecisionSchema.safeParse({ ...decision, extra: true }).success).toBe(false);
  });

  it('refuses a retry field from outside the system', () => {
    expect(ActionDecisionSchema.safeParse({ ...decision, retry }).success).toBe(false);
  });

  it('refuses a decision id in the namespace of the system\'s own decisions', () => {
    const r = ActionDecisionSchema.safeParse({ ...decision, decisionId: 'arvis.retry.0123.1' });
    expect(r.success).toBe(false);
    expect(ActionDecisionSchema.safeParse({ ...decision, decisionId: 'narvis.retry.1' }).success).toBe(true);
  });

  it('refuses a payload that is not a plain object', () => {
    for (const payload of [[1, 2], 'x', null, 3]) {
      expect(ActionDecisionSchema.safeParse({ ...decision, payload }).success).toBe(false);
    }
  });

  it('keeps riskScore within [0, 1]', () => {
    expect(ActionDecisionSchema.safeParse({ ...decision, riskScore: 0 }).success).toBe(true);
    expect(ActionDecisionSchema.safeParse({ ...decision, riskScore: 1 }).success).toBe(true);
    expect(ActionDecisionSchema.safeParse({ ...decision, riskScore: 1.01 }).success).toBe(false);
    expect(ActionDecisionSchema.safeParse({ ...decision, riskScore: -0.1 }).success).toBe(false);
  });

  it('shape-checks the identity as a signed compact JWT', () => {
    for (const identity of ['', 'abc', 'a.b', 'a.b.', 'a.b.c.d', 'a+b.c.d']) {
      expect(ActionDecisionSchema.safeParse({ ...decision, identity }).success).toBe(false);
    }
  });

  it('requires specVersion 1', () => {
    expect(ActionDecisionSchema.safeParse({ ...decision, specVersion: 2 }).success).toBe(false);
    const { specVersion: _omit, ...withoutVersion } = decision;
    expect(ActionDecisionSchema.safeParse(withoutVersion).success).toBe(false);
  });
});

describe('InternalRetryDecisionSchema', () => {
  it('requires retry and stays strict', () => {
    expect(InternalRetryDecisionSchema.parse({ ...decision, decisionId: 'd-1:retry:2', retry }).retry).toEqual(retry);
    expect(InternalRetryDecisionSchema.safeParse(decision).success).toBe(false);
    expect(InternalRetryDecisionSchema.safeParse({ ...decision, retry, extra: 1 }).success).toBe(false);
  });

  it('RetryInfo counts attempts from 1 and refuses unknown fields', () => {
    expect(RetryInfo.safeParse({ ...retry, attempt: 0 }).success).toBe(false);
    expect(RetryInfo.safeParse({ ...retry, attempt: 1.5 }).success).toBe(false);
    expect(RetryInfo.safeParse({ ...retry, nonce: 'x' }).success).toBe(false);
  });
});

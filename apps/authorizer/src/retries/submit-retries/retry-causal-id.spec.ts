import { retryCausalId } from './submit-retries.service';

describe('retryCausalId', () => {
  it('appends the attempt to a short parent causal id', () => {
    expect(retryCausalId('c-7', 2)).toBe('c-7:retry:2');
  });

  it('stays within the contract\'s 200 characters for the longest parent', () => {
    const id = retryCausalId('x'.repeat(200), 1);
    expect(id).toHaveLength(200);
    expect(id.endsWith(':retry:1')).toBe(true);
  });

  it('never cuts inside a surrogate pair', () => {
    const id = retryCausalId('😀'.repeat(100), 1);
    expect(id.length).toBeLessThanOrEqual(200);
    expect(id).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});

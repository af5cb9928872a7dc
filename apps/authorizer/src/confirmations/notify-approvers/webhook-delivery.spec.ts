import { createHmac } from 'node:crypto';
import { backoffAfter, consoleLink, signatureOf } from './webhook-delivery';

describe('an approver webhook delivery', () => {
  it('is signed over its timestamp and exact body', () => {
    const body = '{"deliveryId":"d-1"}';
    const expected = createHmac('sha256', 's'.repeat(32)).update(`1764662400.${body}`).digest('hex');
    expect(signatureOf('s'.repeat(32), body, 1764662400)).toBe(`t=1764662400,v1=${expected}`);
    expect(signatureOf('s'.repeat(32), body, 1764662401)).not.toBe(signatureOf('s'.repeat(32), body, 1764662400));
  });
  it('backs off by doubling, capped at five minutes', () => {
    expect([1, 2, 3, 4, 20].map((n) => backoffAfter(n, 1000))).toEqual([1000, 2000, 4000, 8000, 300_000]);
  });
  it('links to the console under its prefix, naming the confirmation', () => {
    expect(consoleLink('https://ops.example/approvals/console', 'c 1')).toBe('https://ops.example/approvals/console?confirmation=c+1');
  });
});

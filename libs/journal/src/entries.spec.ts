import { canonicalJson } from '@arvis/crypto';
import { MAX_ERROR_MESSAGE, MAX_OPERATOR_NOTE, operatorActionEntry, toolResultEntry, type CapabilityFacts } from './entries';

const facts: CapabilityFacts = {
  decisionId: 'd-1',
  runId: 'r-1',
  causalId: 'c-1',
  tenant: 'acme',
  principal: 'alice',
  tool: 'notes.append',
  capabilityId: 'cap-1',
  intentCommitment: 'a'.repeat(64),
  idempotencyKey: 'k'.repeat(64),
};
const codePoints = (s: string) => [...s].length;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// A cut by UTF-16 units inside an emoji leaves a lone surrogate, which RFC 8785 refuses: the entry
// could never be written. The factories clip every journaled text by code point themselves.
describe('journaled text', () => {
  it("clips an error's message to 500 code points, never inside a pair, and the entry canonicalises", () => {
    const message = `${'a'.repeat(MAX_ERROR_MESSAGE - 1)}😀${'b'.repeat(100)}`;
    const entry = toolResultEntry(facts, { effectBoundary: 'effect_failed', success: false, reasonCode: 'tool_execution_failed', error: { code: 'tool_execution_failed', message } });
    const clipped = entry.error!.message;
    expect([codePoints(clipped) <= MAX_ERROR_MESSAGE, loneSurrogate.test(clipped), clipped.endsWith('…')]).toEqual([true, false, true]);
    expect(() => canonicalJson(entry)).not.toThrow();
  });

  it("clips an operator's note to 2,000 code points", () => {
    const note = '🙂'.repeat(MAX_OPERATOR_NOTE + 5);
    const entry = operatorActionEntry('act-1', { issuer: 'https://idp', subject: 'olga', tenant: 'acme' }, { name: 'release_quarantined', target: 'outbox/1', note });
    expect([codePoints(entry.action!.note!) <= MAX_OPERATOR_NOTE, loneSurrogate.test(entry.action!.note!)]).toEqual([true, false]);
  });

  it('leaves short text as it is', () => {
    const entry = toolResultEntry(facts, { effectBoundary: 'effect_failed', success: false, error: { code: 'tool_execution_failed', message: 'boom 😀' } });
    expect(entry.error!.message).toBe('boom 😀');
  });
});

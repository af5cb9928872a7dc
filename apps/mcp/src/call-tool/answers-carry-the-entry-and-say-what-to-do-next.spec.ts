import type { JournalEntry } from '@arvis/decision-client';
import { answerOf, toCallToolResult } from './tool-answer';

const entry = (over: Partial<JournalEntry>) => ({ decisionId: 'd1', kind: 'tool_result', success: true, output: { noteId: 'n1' }, ...over }) as JournalEntry;

describe('what a tools/call answers', () => {
  it('a final success carries the output as text and structured content with the entry; not an error', () => {
    const r = toCallToolResult(answerOf('d1', { status: 'final', entry: entry({}) }, 'arvis.result'));
    expect(r).toEqual({
      content: [{ type: 'text', text: '{"noteId":"n1"}' }],
      structuredContent: { status: 'final', decisionId: 'd1', success: true, kind: 'tool_result', output: { noteId: 'n1' }, entry: entry({}) },
      isError: false,
    });
  });

  it('a refusal is an error naming its reason code; pending names the id and the tool to read it with', () => {
    const refused = toCallToolResult(answerOf('d1', { status: 'final', entry: entry({ kind: 'authorization_refusal', success: false, output: undefined, reasonCode: 'risk_exceeded' as JournalEntry['reasonCode'] }) }, 'arvis.result'));
    expect(refused).toMatchObject({ isError: true, content: [{ text: 'refused: risk_exceeded (decision d1)' }], structuredContent: { status: 'final', reasonCode: 'risk_exceeded' } });
    expect(refused.structuredContent).not.toHaveProperty('output');
    const pending = toCallToolResult(answerOf('d1', { status: 'pending' }, 'arvis.result'));
    expect(pending).toMatchObject({ isError: false, structuredContent: { status: 'pending', decisionId: 'd1', readWith: 'arvis.result' } });
    expect(pending.content[0]).toMatchObject({ text: expect.stringContaining('arvis.result') });
    expect(toCallToolResult(answerOf('d1', { status: 'not_found' }, 'arvis.result'))).toMatchObject({ isError: true, structuredContent: { status: 'not_found', decisionId: 'd1' } });
    expect(toCallToolResult({ status: 'invalid', issues: ['text: too short'] })).toMatchObject({ isError: true, content: [{ text: 'arguments refused, nothing sent: text: too short' }] });
  });
});

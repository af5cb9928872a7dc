import { columns, compact, entryLine, toJson } from './output';

describe('CLI output helpers', () => {
  it('writes bigints as decimal strings', () => {
    expect(toJson({ seq: 12345678901234567890n })).toBe('{"seq":"12345678901234567890"}');
  });

  it('keeps a value on one short line', () => {
    expect(compact({ a: 'x'.repeat(100) }, 20)).toHaveLength(20);
    expect(compact({ a: 1 })).toBe('{"a":1}');
  });

  it('aligns columns and leaves the last one unpadded', () => {
    expect(columns([['a', 'bb', 'c'], ['ccc', 'd', 'e']])).toEqual(['a    bb  c', 'ccc  d   e']);
  });

  it('shows the reason of a failed entry, else its output', () => {
    const base = { journalSeq: '7', kind: 'tool_result', decisionId: 'd', tool: 'notes.append', effectBoundary: 'effect_failed' };
    expect(entryLine({ ...base, reasonCode: 'tool_timeout', output: { x: 1 } })).toBe('#7  tool_result  d  notes.append  effect_failed  reason=tool_timeout');
    expect(entryLine({ ...base, effectBoundary: 'effect_completed', output: { noteId: '3' } })).toBe(
      '#7  tool_result  d  notes.append  effect_completed  output={"noteId":"3"}',
    );
  });
});

import { escapeHidden, hiddenCharacters } from './hidden-characters';

describe('hidden characters in what an approver is shown', () => {
  it('escapes bidirectional controls and invisible characters, leaving everything else as it is', () => {
    expect(escapeHidden('\u202e2-cca\u202c')).toBe('\\u202e2-cca\\u202c');
    expect(escapeHidden('a\u200bb\ufeffc\u2066d\u{e0041}')).toBe('a\\u200bb\\ufeffc\\u2066d\\udb40\\udc41');
    expect(escapeHidden('acc-2 · Zürich 🙂 שלום')).toBe('acc-2 · Zürich 🙂 שלום');
  });

  it('is still JSON for the same value once escaped', () => {
    const value = { to: '\u202e2-cca\u202c', tag: 'x\u{e0041}' };
    expect(JSON.parse(escapeHidden(JSON.stringify(value)))).toEqual(value);
  });

  it('names every string, key or value, that holds one, with its code points', () => {
    expect(hiddenCharacters({ to: '\u202e2-cca\u202c', amount: 5, tags: ['ok', 'x\u200by'], ['k\u2067']: 'v' })).toEqual([
      { path: '$.to', codePoints: ['U+202E', 'U+202C'] },
      { path: '$.tags[1]', codePoints: ['U+200B'] },
      { path: '$ key "k\\u2067"', codePoints: ['U+2067'] },
    ]);
    expect(hiddenCharacters({ to: 'acc-2' })).toEqual([]);
  });
});

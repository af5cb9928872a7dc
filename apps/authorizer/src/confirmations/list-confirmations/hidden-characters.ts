/**
 * Code points that change how text is shown without showing themselves: bidirectional controls
 * (a U+202E makes `2-cca` render as `acc-2`), zero-width and other invisible characters, the tag
 * block. An approver must see the text that will run, so the console shows each of them escaped
 * (`\u202e`, a JSON escape, so the text shown is still JSON for the same value) and flags the confirmation. One source for
 * the server's flags and the page's escaping.
 */
export const HIDDEN_CODE_POINTS = String.raw`\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\u{e0000}-\u{e0fff}`;

const HIDDEN = new RegExp(`[${HIDDEN_CODE_POINTS}]`, 'gu');

/**
 * `\uXXXX` for each UTF-16 unit of every match (a JSON escape), lower-case hex. Self-contained
 * (no closure, no imports): the console page embeds this function's own source, so the page and
 * the server escape alike.
 */
export function escapeMatches(text: string, pattern: RegExp): string {
  return text.replace(pattern, (c) => Array.from({ length: c.length }, (_, i) => '\\u' + c.charCodeAt(i).toString(16).padStart(4, '0')).join(''));
}

/** Every hidden code point of the text escaped. */
export function escapeHidden(text: string): string {
  return escapeMatches(text, HIDDEN);
}

/** Where a value holds hidden code points: a JSON path per string (keys included), with the code points as U+XXXX. */
export function hiddenCharacters(value: unknown, path = '$'): { path: string; codePoints: string[] }[] {
  if (typeof value === 'string') {
    const found = [...value.matchAll(HIDDEN)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    return found.length > 0 ? [{ path, codePoints: found }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => hiddenCharacters(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [...hiddenCharacters(k, `${path} key "${escapeHidden(k)}"`), ...hiddenCharacters(v, `${path}.${escapeHidden(k)}`)]);
  }
  return [];
}

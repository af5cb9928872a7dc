/**
 * Cuts text to at most `maxCodePoints` code points, never inside a surrogate pair, adding "…"
 * when it cut. A cut by UTF-16 units (`slice`) can leave a lone surrogate, which RFC 8785
 * refuses: a journal entry or DLQ detail holding one can never be written.
 */
export function clipText(s: string, maxCodePoints: number): string {
  // Fast path: fewer UTF-16 units than the limit means fewer code points too.
  if (s.length <= maxCodePoints) return s;
  let units = 0;
  let points = 0;
  while (units < s.length && points < maxCodePoints - 1) {
    const c = s.charCodeAt(units);
    const pair = c >= 0xd800 && c <= 0xdbff && units + 1 < s.length && isLow(s.charCodeAt(units + 1));
    units += pair ? 2 : 1;
    points += 1;
  }
  if (countCodePoints(s, units) <= 1) return s;
  return `${s.slice(0, units)}…`;
}

const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Code points from `from` to the end (a lone surrogate counts as one). */
function countCodePoints(s: string, from: number): number {
  let n = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
    n++;
  }
  return n;
}

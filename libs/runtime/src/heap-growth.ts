import { setFlagsFromString } from 'node:v8';

/**
 * V8's flag for how far the old generation may grow past what survived the last full GC before
 * the next one: (1 + percent / 100) times it. 0 leaves V8's own choice, which grows it up to four
 * times while GC looks cheap: under a burst a hot process then carries a hundred-odd MB of
 * promoted garbage, most of its resident set (ADR 0085).
 */
export function heapGrowthFlag(percent: number): string | undefined {
  if (!Number.isInteger(percent) || percent < 0) throw new RangeError(`heap growth percent must be a whole number >= 0, got ${percent}`);
  return percent === 0 ? undefined : `--heap-growing-percent=${percent}`;
}

/**
 * Applied at start-up, once the configuration is read: V8 reads the flag at every full GC when it
 * sets the next limit, so it takes effect after start (unlike the semi-space size, ADR 0051), and
 * it cannot be passed in NODE_OPTIONS.
 */
export function applyHeapGrowth(percent: number): void {
  const flag = heapGrowthFlag(percent);
  if (flag) setFlagsFromString(flag);
}

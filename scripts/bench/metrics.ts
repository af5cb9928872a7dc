// The authorizer's verified-token cache counters (ADR 0047), read from its /metrics (Prometheus
// text) on the management port. A build without the cache has no such counter: null, "n/a".
export const TOKEN_CACHE_METRIC = 'arvis_identity_token_cache_lookups_total';

export interface CacheCounts {
  hits: number;
  misses: number;
}

/** The hit and miss counts in a /metrics body; null when the counter is not there. */
export function parseCacheCounts(text: string): CacheCounts | null {
  const value = (result: string) => {
    const m = new RegExp(`^${TOKEN_CACHE_METRIC}\\{[^}]*result="${result}"[^}]*\\}\\s+(\\S+)`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const hits = value('hit');
  const misses = value('miss');
  if (hits === undefined && misses === undefined && !text.includes(`# TYPE ${TOKEN_CACHE_METRIC} `)) return null;
  return { hits: hits ?? 0, misses: misses ?? 0 };
}

export interface TokenCacheFigures extends CacheCounts {
  /** hits / (hits + misses), percent; null when nothing was looked up. */
  hitPercent: number | null;
}

/** The window's lookups from counts at its start and end; null when either read had no counter. */
export function cacheWindow(a: CacheCounts | null, b: CacheCounts | null): TokenCacheFigures | null {
  if (!a || !b) return null;
  const hits = b.hits - a.hits;
  const misses = b.misses - a.misses;
  return { hits, misses, hitPercent: hits + misses > 0 ? Math.round((hits / (hits + misses)) * 1000) / 10 : null };
}

export async function readCacheCounts(port: number): Promise<CacheCounts | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? parseCacheCounts(await res.text()) : null;
  } catch {
    return null;
  }
}

/** How long one database read serves every gauge of a scrape. */
export const SCRAPE_SNAPSHOT_MS = 500;

/**
 * prom-client collects each gauge on its own, so gauges fed by one query would run it once each
 * per scrape. This shares one read between them: a read started within `ms` of the last is
 * reused; a failed read is not kept, so the next scrape tries again.
 */
export function scrapeSnapshot<T>(read: () => Promise<T>, ms = SCRAPE_SNAPSHOT_MS, now: () => number = Date.now): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | undefined;
  return () => {
    const t = now();
    if (!cached || t - cached.at > ms) {
      const value = read();
      const entry = { at: t, value };
      value.catch(() => {
        if (cached === entry) cached = undefined;
      });
      cached = entry;
    }
    return cached.value;
  };
}

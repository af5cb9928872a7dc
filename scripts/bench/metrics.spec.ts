import { cacheWindow, parseCacheCounts } from './metrics';

const body = (hit: number, miss: number) => `# HELP arvis_identity_token_cache_lookups_total x
# TYPE arvis_identity_token_cache_lookups_total counter
arvis_identity_token_cache_lookups_total{result="hit"} ${hit}
arvis_identity_token_cache_lookups_total{result="miss"} ${miss}
# HELP process_cpu_seconds_total y
`;

describe('bench token-cache figures', () => {
  it('reads the hit and miss counters from /metrics', () => {
    expect(parseCacheCounts(body(90, 10))).toEqual({ hits: 90, misses: 10 });
  });

  it('reads a counter registered but not yet counted as zeros, and a build without it as null', () => {
    expect(parseCacheCounts('# HELP arvis_identity_token_cache_lookups_total x\n# TYPE arvis_identity_token_cache_lookups_total counter\n')).toEqual({ hits: 0, misses: 0 });
    expect(parseCacheCounts('# TYPE arvis_retention_pruned_rows_total counter\n')).toBeNull();
  });

  it('gives the window hit rate from the counts at its two ends; n/a (null) when a build has no counter', () => {
    expect(cacheWindow({ hits: 180, misses: 20 }, { hits: 1080, misses: 120 })).toEqual({ hits: 900, misses: 100, hitPercent: 90 });
    expect(cacheWindow({ hits: 5, misses: 5 }, { hits: 5, misses: 5 })).toEqual({ hits: 0, misses: 0, hitPercent: null });
    expect(cacheWindow(null, null)).toBeNull();
  });
});

import { JournalChain } from '@arvis/contracts';
import { chainOfShard, MAX_JOURNAL_SHARDS, shardKeyOf, shardOf } from './journal-shards';

describe('the shard of a (tenant, run)', () => {
  it('is the same every time, so every entry of a run goes to one chain', () => {
    const first = shardOf('acme', 'run-42', 4);
    for (let i = 0; i < 100; i++) expect(shardOf('acme', 'run-42', 4)).toBe(first);
  });

  it('is pinned: the same on every machine and release (SHA-256, not a runtime string hash)', () => {
    // A change here moves runs between chains on upgrade: it would need a migration of its own.
    expect([shardKeyOf('acme', 'run-1'), shardKeyOf('globex', 'run-1'), shardKeyOf('acme', 'run-2')]).toEqual([873481831, 3432846821, 466577112]);
    expect([shardOf('acme', 'run-1', 4), shardOf('globex', 'run-1', 4), shardOf('acme', 'run-2', 4)]).toEqual([3, 1, 0]);
  });

  it('depends on the tenant: one run id of two tenants is two runs (ADR 0061)', () => {
    expect(shardKeyOf('acme', 'run-1')).not.toBe(shardKeyOf('globex', 'run-1'));
    // The separator keeps ("ab", "c") and ("a", "bc") apart.
    expect(shardKeyOf('ab', 'c')).not.toBe(shardKeyOf('a', 'bc'));
  });

  it('with one shard is always 0: the one chain, main', () => {
    for (let i = 0; i < 50; i++) expect(shardOf('acme', `run-${i}`, 1)).toBe(0);
    expect(chainOfShard(0)).toBe('main');
  });

  it('spreads runs over the shards about evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) counts[shardOf(`tenant-${i % 7}`, `run-${i}`, 4)]++;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
  });

  it('names chains the contract accepts, each once', () => {
    const names = Array.from({ length: MAX_JOURNAL_SHARDS }, (_, k) => chainOfShard(k));
    expect(new Set(names).size).toBe(MAX_JOURNAL_SHARDS);
    for (const n of names) expect(JournalChain.safeParse(n).success).toBe(true);
    expect(names.slice(0, 3)).toEqual(['main', 'shard-1', 'shard-2']);
  });

  it('refuses a shard count outside 1..64', () => {
    expect(() => shardOf('acme', 'run-1', 0)).toThrow(RangeError);
    expect(() => shardOf('acme', 'run-1', MAX_JOURNAL_SHARDS + 1)).toThrow(RangeError);
    expect(() => shardOf('acme', 'run-1', 1.5)).toThrow(RangeError);
  });
});

import { execFileSync } from 'node:child_process';
import { heapGrowthFlag } from './heap-growth';

// ADR 0085: the flag heapGrowthFlag makes, applied after start as applyHeapGrowth applies it,
// bounds how much promoted garbage the old generation holds. A child process keeps a ring of
// 100,000 objects alive and replaces them 2,000,000 times (objects that outlive the young
// generation, then die: a burst's in-flight work), and reports its largest heapTotal. Measured on
// the project's machines: 173-175 MB with V8's own growth, 117-124 MB with 100%. The child's GC
// runs on its main thread (--single-threaded-gc): what is tested is the limit the flag sets, and
// with concurrent marking the mutator allocates past the limit while the marking threads wait for
// a core, so on a loaded machine the bounded heap came out at 184 MB against 207 MB (a clean-clone
// CI run, 2026-12-05). On its main thread: 222 MB against 131 MB, quiet or with three busy loops.
const CHILD = `
const flag = process.env.HEAP_FLAG;
if (flag) require('node:v8').setFlagsFromString(flag);
const ring = new Array(100000).fill(null);
let max = 0;
for (let i = 0; i < 2000000; i++) {
  ring[i % ring.length] = { a: 'x'.repeat(50) + i, b: [i, i + 1] };
  if (i % 10000 === 0) max = Math.max(max, process.memoryUsage().heapTotal);
}
process.stdout.write(String(max));
`;

const peakHeap = (flag: string | undefined): number =>
  Number(execFileSync(process.execPath, ['--max-semi-space-size=8', '--single-threaded-gc', '-e', CHILD], { env: { ...process.env, HEAP_FLAG: flag ?? '' }, encoding: 'utf8' }));

describe('the old generation grows only by the configured percent', () => {
  it('makes the flag for a percent, none for 0, and refuses a negative or fractional one', () => {
    expect(heapGrowthFlag(100)).toBe('--heap-growing-percent=100');
    expect(heapGrowthFlag(0)).toBeUndefined();
    expect(() => heapGrowthFlag(-1)).toThrow(RangeError);
    expect(() => heapGrowthFlag(1.5)).toThrow(RangeError);
  });

  it('holds a burst of promoted garbage in a smaller heap than V8 left to itself', () => {
    const own = peakHeap(undefined);
    const bounded = peakHeap(heapGrowthFlag(100));
    expect(bounded).toBeLessThan(own * 0.85);
  });
});

import { waitForQuietMachine } from './quiet';

/** A clock that moves only when slept on, and a load that follows it. */
function fake(loadAt: (s: number) => number) {
  let t = 0;
  return { load: () => loadAt(t / 1000), sleep: async (ms: number) => void (t += ms), now: () => t };
}

describe('the wait for a quiet machine', () => {
  it('returns at once when the load is already low', async () => {
    expect(await waitForQuietMachine(180, () => undefined, fake(() => 0.4))).toEqual({ waitedS: 0, load: 0.4, quiet: true });
  });

  it('waits while the build\'s load decays, saying so', async () => {
    const said: string[] = [];
    const out = await waitForQuietMachine(180, (l) => said.push(l), fake((s) => 2 * Math.exp(-s / 60)));
    expect(out.quiet).toBe(true);
    expect(out.load).toBeLessThan(1);
    expect(out.waitedS).toBeGreaterThanOrEqual(40);
    expect(said[0]).toMatch(/load average 2\.00/);
  });

  it('gives up after its longest wait and says the machine is not quiet', async () => {
    expect(await waitForQuietMachine(30, () => undefined, fake(() => 1.7))).toEqual({ waitedS: 30, load: 1.7, quiet: false });
  });
});

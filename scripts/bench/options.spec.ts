import { parseOptions } from './options';

describe('bench options', () => {
  it('has the documented defaults', () => {
    expect(parseOptions([])).toEqual({ decisions: 20000, sweep: [50, 200, 500, 1000], stepSeconds: 20, p99BoundMs: 1000, baselines: true, baselineSeconds: 10, help: false });
  });

  it('reads a short run and a comparison', () => {
    const o = parseOptions(['--decisions', '2000', '--sweep', '200,50', '--step-seconds', '10', '--no-baselines', '--compare', 'HEAD~1']);
    expect(o).toMatchObject({ decisions: 2000, sweep: [50, 200], stepSeconds: 10, baselines: false, compare: 'HEAD~1' });
  });

  it('refuses bad values and unknown flags', () => {
    expect(() => parseOptions(['--sweep', '50,abc'])).toThrow(/--sweep/);
    expect(() => parseOptions(['--sweep', '50,50'])).toThrow(/twice/);
    expect(() => parseOptions(['--step-seconds', '0'])).toThrow(/--step-seconds/);
    expect(() => parseOptions(['--rate', '5'])).toThrow();
  });
});

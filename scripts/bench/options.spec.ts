import { parseOptions } from './options';

describe('bench options', () => {
  it('has the documented defaults', () => {
    expect(parseOptions([])).toEqual({ decisions: 20000, throughputRuns: 1, sweepRuns: 1, settleRuns: 0, brokerWarmup: 5000, sweep: [50, 200, 500, 1000], stepSeconds: 20, p99BoundMs: 1000, baselines: true, baselineSeconds: 10, load: 'realistic', idleSeconds: 20, idleOnly: false, scale: [], cpuProf: false, appEnv: {}, quietWaitS: 180, bFirst: false, help: false });
  });

  it('reads a short run and a comparison', () => {
    const o = parseOptions(['--decisions', '2000', '--sweep', '200,50', '--step-seconds', '10', '--no-baselines', '--compare', 'HEAD~1']);
    expect(o).toMatchObject({ decisions: 2000, sweep: [50, 200], stepSeconds: 10, baselines: false, compare: 'HEAD~1' });
  });

  it('sets --app-env pairs for every build, values kept whole, and refuses a malformed or repeated name', () => {
    expect(parseOptions(['--app-env', 'KAFKA_MAX_BATCH_BYTES=3145728', '--app-env', 'A_B=x=y ']).appEnv).toEqual({ KAFKA_MAX_BATCH_BYTES: '3145728', A_B: 'x=y ' });
    expect(() => parseOptions(['--app-env', 'NOVALUE'])).toThrow(/NAME=VALUE/);
    expect(() => parseOptions(['--app-env', '1X=2'])).toThrow(/NAME=VALUE/);
    expect(() => parseOptions(['--app-env', 'A=1', '--app-env', 'A=2'])).toThrow(/sets A twice/);
  });

  it('repeats the throughput step only when asked, 1 to 25 times', () => {
    expect(parseOptions(['--throughput-runs', '3']).throughputRuns).toBe(3);
    expect(parseOptions(['--sweep-runs', '3']).sweepRuns).toBe(3);
    expect(() => parseOptions(['--sweep-runs', '0'])).toThrow(/--sweep-runs/);
    expect(() => parseOptions(['--throughput-runs', '0'])).toThrow(/--throughput-runs/);
    expect(() => parseOptions(['--throughput-runs', '26'])).toThrow(/--throughput-runs/);
  });

  it('waits for a quiet machine up to --quiet-wait-s seconds, 0 not at all', () => {
    expect(parseOptions(['--quiet-wait-s', '0']).quietWaitS).toBe(0);
    expect(() => parseOptions(['--quiet-wait-s', '-1'])).toThrow(/--quiet-wait-s/);
  });

  it('measures B first only when asked', () => {
    expect(parseOptions(['--compare', 'HEAD~1', '--b-first'])).toMatchObject({ compare: 'HEAD~1', bFirst: true });
    // A comparison settles each build with one unmeasured throughput run unless told otherwise.
    expect(parseOptions(['--compare', 'HEAD~1']).settleRuns).toBe(1);
    expect(parseOptions(['--compare', 'HEAD~1', '--settle-runs', '0']).settleRuns).toBe(0);
    expect(parseOptions(['--settle-runs', '2']).settleRuns).toBe(2);
  });

  it('runs the idle phase alone with --idle-only, which needs a window of at least a second', () => {
    expect(parseOptions(['--idle-only', '--idle-seconds', '60'])).toMatchObject({ idleOnly: true, idleSeconds: 60 });
    expect(() => parseOptions(['--idle-only', '--idle-seconds', '0'])).toThrow(/--idle-seconds/);
  });
  it('chooses the load and the idle phase, 0 skipping it', () => {
    expect(parseOptions(['--load', 'uniform', '--idle-seconds', '0'])).toMatchObject({ load: 'uniform', idleSeconds: 0 });
    expect(() => parseOptions(['--load', 'heavy'])).toThrow(/--load must be realistic or uniform/);
    expect(() => parseOptions(['--idle-seconds', '-1'])).toThrow(/--idle-seconds/);
  });

  it('has no scale phase unless --scale lists process counts, which it sorts', () => {
    expect(parseOptions([]).scale).toEqual([]);
    expect(parseOptions(['--scale', '4,1,2']).scale).toEqual([1, 2, 4]);
  });

  it('refuses a scale list that is empty, repeats a count or asks for 0 or more than 16 processes', () => {
    expect(() => parseOptions(['--scale', ''])).toThrow(/--scale needs/);
    expect(() => parseOptions(['--scale', '1,1'])).toThrow(/--scale lists a value twice/);
    expect(() => parseOptions(['--scale', '0'])).toThrow(/--scale must be/);
    expect(() => parseOptions(['--scale', '17'])).toThrow(/--scale must be/);
  });

  it('refuses bad values and unknown flags', () => {
    expect(() => parseOptions(['--sweep', '50,abc'])).toThrow(/--sweep/);
    expect(() => parseOptions(['--sweep', '50,50'])).toThrow(/twice/);
    expect(() => parseOptions(['--step-seconds', '0'])).toThrow(/--step-seconds/);
    expect(() => parseOptions(['--rate', '5'])).toThrow();
  });
});

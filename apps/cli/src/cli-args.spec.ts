import { parseCommandLine, UsageError } from './cli-args';

describe('parseCommandLine', () => {
  it('reads every command and --json anywhere', () => {
    expect(parseCommandLine(['verify'])).toEqual({ command: { name: 'verify', source: 'database' }, json: false });
    expect(parseCommandLine(['verify', '--from-topic']).command).toEqual({ name: 'verify', source: 'topic' });
    expect(parseCommandLine(['verify', '--against-topic']).command).toEqual({ name: 'verify', source: 'database-against-topic' });
    expect(parseCommandLine(['catalog', '--json'])).toEqual({ command: { name: 'catalog' }, json: true });
    expect(parseCommandLine(['--json', 'run', 'r-1'])).toEqual({ command: { name: 'run', runId: 'r-1' }, json: true });
    expect(parseCommandLine(['replay', 'r-1', '--json'])).toEqual({ command: { name: 'replay', runId: 'r-1' }, json: true });
    expect(parseCommandLine(['outbox', '--quarantined'])).toEqual({ command: { name: 'outbox', quarantined: true }, json: false });
    expect(parseCommandLine(['tail', '--tenant', 'acme', '--boundary', 'effect_failed', '--from-beginning', '--limit', '5'])).toEqual({
      command: { name: 'tail', filter: { tenant: 'acme', boundary: 'effect_failed' }, fromBeginning: true, limit: 5 },
      json: false,
    });
  });

  it('reads doctor\'s environment files and its clock-skew threshold', () => {
    expect(parseCommandLine(['doctor', '--authorizer-env', 'a.env', '--kafka-admin-env', 'k.env', '--max-clock-skew-ms', '250']).command).toEqual({
      name: 'doctor',
      envFiles: { authorizer: 'a.env', 'kafka-admin': 'k.env' },
      maxClockSkewMs: 250,
    });
    expect(() => parseCommandLine(['doctor', '--cli-env', 'c.env', '--max-clock-skew-ms', '2s'])).toThrow('--max-clock-skew-ms: a whole number of milliseconds');
    expect(() => parseCommandLine(['verify', '--max-clock-skew-ms', '5'])).toThrow('--max-clock-skew-ms applies to doctor only');
  });

  it('reads --version, -V and version as the version command', () => {
    for (const argv of [['--version'], ['-V'], ['version'], ['version', '--json']]) expect(parseCommandLine(argv).command).toEqual({ name: 'version' });
  });

  it('treats no command and --help as help', () => {
    expect(parseCommandLine([]).command).toEqual({ name: 'help' });
    expect(parseCommandLine(['verify', '--help']).command).toEqual({ name: 'help' });
  });

  it.each([
    [['frobnicate'], /unknown command/],
    [['run'], /exactly one <runId>/],
    [['run', 'a', 'b'], /exactly one <runId>/],
    [['verify', 'extra'], /unexpected argument/],
    [['verify', '--tenant', 'x'], /applies to tail only/],
    [['tail', '--limit', '0'], /positive integer/],
    [['tail', '--boundary', 'done'], /--boundary must be one of/],
    [['tail', '--colour'], /Unknown option/],
    [['outbox'], /outbox needs --quarantined/],
    [['outbox', '--quarantined', 'x'], /unexpected argument/],
    [['verify', '--quarantined'], /applies to outbox only/],
    [['verify', '--from-topic', '--against-topic'], /not both/],
    [['tail', '--from-topic'], /apply to verify only/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

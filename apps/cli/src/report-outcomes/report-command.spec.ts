import { parseCommandLine, UsageError } from '../cli-args';

describe('report on the command line', () => {
  it('takes --since, --until and --html, each optional', () => {
    expect(parseCommandLine(['report'])).toEqual({ command: { name: 'report', since: undefined, until: undefined }, json: false });
    expect(parseCommandLine(['report', '--since', '2h', '--until', '2026-11-30T10:00:00Z', '--html', 'out.html', '--json'])).toEqual({
      command: { name: 'report', since: { agoMs: 7_200_000 }, until: { at: new Date('2026-11-30T10:00:00Z') }, htmlFile: 'out.html' },
      json: true,
    });
  });

  it.each([
    [['report', '--since', 'yesterday'], /--since must be an ISO 8601 date/],
    [['report', '--until', '10:00'], /--until must be an ISO 8601 date/],
    [['report', '--html', ' '], /--html needs a file name/],
    [['report', 'extra'], /unexpected argument/],
    [['verify', '--since', '1h'], /--since applies to report only/],
    [['tail', '--html', 'x.html'], /--html applies to report only/],
    [['report', '--tenant', 'acme'], /applies to tail only/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

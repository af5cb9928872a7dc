import { parseOptions } from './options';

describe('chaos options', () => {
  it('reads the seed, the duration and the flags', () => {
    expect(parseOptions(['--seed', '3', '--seconds', '90', '--no-pg-restart'])).toEqual({
      seed: 3,
      seconds: 90,
      rate: 50,
      settleSeconds: 120,
      pgRestart: false,
      ci: false,
    });
  });

  it('has a shorter form for CI', () => {
    expect(parseOptions(['--seed', '1', '--seconds', '60', '--ci'])).toMatchObject({ seconds: 60, rate: 30, settleSeconds: 50, pgRestart: true, ci: true });
  });

  it.each([['--seed', 'x'], ['--seconds', '5'], ['--rate', '0'], ['--bogus', '1']])('refuses %s %s', (flag, value) => {
    expect(() => parseOptions([flag, value])).toThrow();
  });
});

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Debian's `prometheus` package (scripts/test.sh installs it): without promtool this fails, never skips.
const DIR = __dirname;
const files = readdirSync(DIR);
const ruleFiles = files.filter((f) => f.endsWith('.rules.yml'));
const testFiles = files.filter((f) => f.endsWith('.test.yml'));
const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: DIR, encoding: 'utf8', stdio: 'pipe' });
const matches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]);

describe('deploy/prometheus rules', () => {
  it('ships rule files and their promtool unit tests', () => {
    expect(ruleFiles.length).toBeGreaterThan(0);
    expect(testFiles.length).toBeGreaterThan(0);
  });

  it('passes promtool check rules', () => {
    expect(promtool('check', 'rules', ...ruleFiles)).toMatch(/SUCCESS/);
  });

  it('passes promtool test rules', () => {
    expect(promtool('test', 'rules', ...testFiles)).toMatch(/SUCCESS/);
  });

  it('has every alert both firing and silent in some unit test', () => {
    const alerts = ruleFiles.flatMap((f) => matches(readFileSync(join(DIR, f), 'utf8'), /^\s*- alert: (\S+)/gm));
    const tests = testFiles.map((f) => readFileSync(join(DIR, f), 'utf8')).join('\n');
    // Each alert_rule_test case: its alertname and whether it expects none.
    const cases = [...tests.matchAll(/alertname: (\S+)\n\s*exp_alerts:( \[\])?/g)].map((m) => ({ name: m[1], silent: m[2] !== undefined }));
    for (const alert of alerts) {
      expect({ alert, fires: cases.some((c) => c.name === alert && !c.silent) }).toEqual({ alert, fires: true });
      expect({ alert, silent: cases.some((c) => c.name === alert && c.silent) }).toEqual({ alert, silent: true });
    }
  });
});

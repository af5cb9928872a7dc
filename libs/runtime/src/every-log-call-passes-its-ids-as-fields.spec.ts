import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

// Being rewritten elsewhere (the journal's readers); they follow once that lands.
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' || name === 'generated' ? [] : sources(path);
    return /\.ts$/.test(name) && !/\.(e2e-)?spec\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * A logger call whose first argument is a template literal or a string concatenation puts ids into
 * prose, where a log pipeline cannot find them (ADR 0064): ids go as fields, msg stays stable.
 */
const INTERPOLATED = /\b(?:log|logger)\.(?:log|warn|error|fatal|debug|verbose)\(\s*(?:`[^`]*\$\{|['"][^'"]*['"]\s*\+)/;

describe('every log call of the apps and libraries', () => {
  it('passes its ids as fields with a stable msg, never interpolated into the text', () => {
    const files = ['apps', 'libs'].flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f).split('\\').join('/'));
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .flatMap((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').map((line, i) => ({ where: `${f}:${i + 1}`, line })))
      .filter(({ line }) => INTERPOLATED.test(line))
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });
});

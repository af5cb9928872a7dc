import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { USAGE } from './cli-args';
import { EXIT, EXIT_CODES_TEXT } from './exit-codes';

const ROOT = join(__dirname, '..', '..', '..');
const oneLine = (s: string) => s.replace(/\s+/g, ' ');

describe('the CLI\'s exit codes', () => {
  it('are named, every one, in the usage text and both READMEs', () => {
    expect(EXIT_CODES_TEXT).toBe('Exit codes: 0 ok, 1 usage or configuration error, 2 tampering or mismatch found, or a doctor check failed, 3 unknown run, 4 the admin API refused the act.');
    expect(Object.values(EXIT)).toEqual([0, 1, 2, 3, 4]);
    for (const [where, text] of [['usage', USAGE], ['README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')], ['apps/cli/README.md', readFileSync(join(ROOT, 'apps', 'cli', 'README.md'), 'utf8')]]) {
      expect({ where, says: oneLine(text).includes(EXIT_CODES_TEXT) }).toEqual({ where, says: true });
    }
  });
});

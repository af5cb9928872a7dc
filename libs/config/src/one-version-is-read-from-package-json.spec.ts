import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arvisVersion } from './version';

const ROOT = join(__dirname, '..', '..', '..');
const versionOf = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;

// ADR 0065: one version, the root package.json's; the CLI's package.json (packed on its own) says the same.
describe('the release version', () => {
  it('is the root package.json\'s, and the CLI\'s package.json and the CHANGELOG\'s newest release agree', () => {
    const version = versionOf(join(ROOT, 'package.json'));
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(arvisVersion()).toBe(version);
    expect(versionOf(join(ROOT, 'apps', 'cli', 'package.json'))).toBe(version);
    const released = /^## \[(\d+\.\d+\.\d+[^\]]*)\]/m.exec(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'));
    expect(released?.[1]).toBe(version);
  });

  it('is found from the nearest of our package.json files above, skipping a tool package\'s own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arvis-version-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@arvis/cli', version: '9.8.7' }));
    mkdirSync(join(dir, 'dist', 'tools', 'demo'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'tools', 'demo', 'package.json'), JSON.stringify({ name: '@arvis/demo-tools', version: '0.0.1' }));
    expect(arvisVersion(join(dir, 'dist', 'tools', 'demo'))).toBe('9.8.7');
    expect(arvisVersion(tmpdir())).toBe('0.0.0-unknown');
  });
});

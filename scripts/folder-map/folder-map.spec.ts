// The folder map in docs/architecture.md is how a newcomer finds where a line belongs: every app,
// every library and every use-case folder of an app must be on it, and nothing that is gone. The
// authorizer's and the dispatcher's part is generated from their feature modules (folder-map.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DOC_FILE, folderMapProblems, REGENERATE_COMMAND, withFolderMap } from './folder-map';

const ROOT = join(__dirname, '..', '..');
const dirs = (path: string) => readdirSync(join(ROOT, path)).filter((n) => statSync(join(ROOT, path, n)).isDirectory() && n !== 'generated');

/**
 * The map's code blocks (the generated one, then the rest): top-level entries (`apps/x/src`,
 * `libs/y`) with the folders indented under them by two spaces, and the folders of a feature
 * folder (a stage) by four.
 */
function folderMap(): Map<string, string> {
  const doc = readFileSync(join(ROOT, DOC_FILE), 'utf8');
  const section = doc.slice(doc.indexOf('## Folder map')).split(/\n## /)[0];
  const block = section
    .split('```')
    .filter((_, i) => i % 2 === 1)
    .join('\n');
  const entries = new Map<string, string>();
  let top = '';
  let folder = '';
  let last = '';
  for (const line of block.split('\n')) {
    const m = /^(\s*)(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '') entries.set((last = top = m[2].replace(/\/$/, '')), m[3]);
    else if (/^[a-z0-9-]+\/$/.test(m[2]) && m[1].length === 2) entries.set((last = folder = `${top}/${m[2].replace(/\/$/, '')}`), m[3]);
    else if (/^[a-z0-9-]+\/$/.test(m[2]) && m[1].length === 4) entries.set((last = `${folder}/${m[2].replace(/\/$/, '')}`), m[3]);
    // A description carried on to the next line, aligned under the first.
    else entries.set(last, `${entries.get(last) ?? ''} ${line.trim()}`);
  }
  return entries;
}

describe('the folder map in docs/architecture.md', () => {
  const map = folderMap();

  it("holds the authorizer's and the dispatcher's part exactly as their feature modules give it now", () => {
    const doc = readFileSync(join(ROOT, DOC_FILE), 'utf8');
    if (withFolderMap(doc) !== doc) throw new Error(`${DOC_FILE}: the folder map is out of date; regenerate it with: ${REGENERATE_COMMAND}`);
  });

  it("gives every folder of the authorizer and the dispatcher a line on its module, and none to a folder that is gone", () => {
    expect(folderMapProblems(ROOT)).toEqual([]);
  });

  it('names every app and every library', () => {
    const expected = [...dirs('apps').map((a) => `apps/${a}/src`), ...dirs('libs').map((l) => `libs/${l}`)];
    expect(expected.filter((p) => !map.has(p))).toEqual([]);
  });

  it.each(['authorizer', 'dispatcher'])('names every folder of apps/%s/src (and of its feature folders), and none that is gone', (app) => {
    const top = `apps/${app}/src`;
    const onDisk = dirs(top).flatMap((d) => [`${top}/${d}`, ...dirs(`${top}/${d}`).map((s) => `${top}/${d}/${s}`)]);
    const onMap = [...map.keys()].filter((k) => k.startsWith(`${top}/`));
    expect(onDisk.filter((p) => !map.has(p))).toEqual([]);
    expect(onMap.filter((p) => !onDisk.includes(p))).toEqual([]);
  });

  it('names every command folder of the CLI on its line', () => {
    const cli = map.get('apps/cli/src') ?? '';
    const missing = dirs('apps/cli/src').filter((d) => !new RegExp(`\\b${d}/`).test(cli));
    expect(missing).toEqual([]);
  });
});

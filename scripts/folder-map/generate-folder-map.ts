// `npm run folder-map`: rewrites the authorizer's and the dispatcher's part of the folder map in
// docs/architecture.md from their feature modules.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DOC_FILE, folderMapProblems, withFolderMap } from './folder-map';

const root = resolve(__dirname, '..', '..', '..');
const problems = folderMapProblems(root);
if (problems.length > 0) {
  console.error(`[folder-map] not written:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const path = join(root, DOC_FILE);
writeFileSync(path, withFolderMap(readFileSync(path, 'utf8')));
console.log(`[folder-map] wrote ${DOC_FILE}`);

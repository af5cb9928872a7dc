// Part of `npm run build`: tsc compiles tools/<name>/src into dist/tools/<name>/src (and emits the
// package.json it imports); this copies what tsc does not, each package's migrations/, so that
// dist/tools/<name> is a whole package that ARVIS_TOOL_PACKAGES can name.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const tools = join(root, 'tools');
for (const name of existsSync(tools) ? readdirSync(tools) : []) {
  for (const asset of ['migrations', 'package.json']) {
    const from = join(tools, name, asset);
    if (existsSync(from)) cpSync(from, join(root, 'dist', 'tools', name, asset), { recursive: true });
  }
}

// Prints `export NAME='value'` lines for the local keys (see local-keys.ts) and the demo's tool
// package (see local-tools.ts), for `eval` in a shell.
import { join } from 'node:path';
import { localKeyEnv, localKeys } from './local-keys';
import { localToolPackages } from './local-tools';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const root = join(__dirname, '..', '..');
// Local runs have no proxy in front of the authorizer's API (production requires saying so).
const env = { ...localKeyEnv(localKeys(join(root, '.data'))), ARVIS_TOOL_PACKAGES: process.env.ARVIS_TOOL_PACKAGES || localToolPackages(root), TRUST_PROXY: process.env.TRUST_PROXY || 'false' };
for (const [name, value] of Object.entries(env)) console.log(`export ${name}=${q(value)}`);

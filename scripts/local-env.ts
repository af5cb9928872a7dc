// Prints `export NAME='value'` lines for the local keys (see local-keys.ts), for `eval` in a shell.
import { join } from 'node:path';
import { localKeyEnv, localKeys } from './local-keys';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const env = localKeyEnv(localKeys(join(__dirname, '..', '..', '.data')));
for (const [name, value] of Object.entries(env)) console.log(`export ${name}=${q(value)}`);

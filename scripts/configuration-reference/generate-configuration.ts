// `npm run config:docs`: rewrites docs/configuration.md and the services' .env.example files from the zod schemas.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderConfigurationFiles } from './configuration-reference';

const root = resolve(__dirname, '..', '..', '..');
const files = renderConfigurationFiles(root);
for (const [path, text] of files) writeFileSync(join(root, path), text);
console.log(`[config:docs] wrote ${[...files.keys()].join(', ')}`);

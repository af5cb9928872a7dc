// `npm run schemas`: rewrites schemas/ from the zod contracts (one file per message; stale files removed).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { README_FILE, renderSchemaFiles, renderSchemasReadme, SCHEMAS_DIR } from './message-schemas';

const dir = resolve(__dirname, '..', '..', '..', SCHEMAS_DIR);
const files = renderSchemaFiles();
mkdirSync(dir, { recursive: true });
for (const name of readdirSync(dir)) if (name.endsWith('.schema.json') && !files.has(name)) rmSync(join(dir, name));
for (const [name, text] of files) writeFileSync(join(dir, name), text);
writeFileSync(join(dir, README_FILE), renderSchemasReadme());
console.log(`[schemas] wrote ${files.size} files to ${SCHEMAS_DIR}/`);

// Jest applies moduleNameMapper to test files but not to globalSetup/globalTeardown modules;
// this gives those two the same mapping: tsconfig's @arvis/* paths, and the `.js` suffixes of
// the generated Prisma client's relative imports resolved to their `.ts` sources.
import Module from 'node:module';
import { join } from 'node:path';

const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = mod._resolveFilename;
mod._resolveFilename = function (request: string, ...rest: unknown[]) {
  const alias = /^@arvis\/([^/]+)$/.exec(request);
  if (alias) return original.call(this, join(__dirname, '..', '..', 'libs', alias[1], 'src', 'index.ts'), ...rest);
  try {
    return original.call(this, request, ...rest);
  } catch (e) {
    if (/^\.{1,2}\/.*\.js$/.test(request)) return original.call(this, request.replace(/\.js$/, '.ts'), ...rest);
    throw e;
  }
};

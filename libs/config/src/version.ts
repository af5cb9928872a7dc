import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package.json files that carry the release's version: the repository's (and image's), and the CLI's when packed on its own. */
const VERSIONED_PACKAGES: ReadonlySet<string> = new Set(['arvis-effect-path', '@arvis/cli']);

let cached: string | undefined;

/**
 * The release this build is: the `version` of the nearest package.json above this file that is
 * one of ours (ADR 0065). One source, read at start-up: `arvis --version`, the health and ready
 * answers and `arvis_build_info` all say the same. The CLI's own package.json is kept equal to the
 * root's by a spec.
 */
export function arvisVersion(from: string = __dirname): string {
  if (cached !== undefined && from === __dirname) return cached;
  let dir = from;
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name && VERSIONED_PACKAGES.has(pkg.name) && typeof pkg.version === 'string') {
        if (from === __dirname) cached = pkg.version;
        return pkg.version;
      }
    } catch {
      // No package.json here (or unreadable): look further up.
    }
    const up = dirname(dir);
    if (up === dir) return '0.0.0-unknown';
    dir = up;
  }
}

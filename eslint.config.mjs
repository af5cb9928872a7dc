// Lint: one rule for now, so that every function can be read on one screen.
// Source only: apps/, libs/, tools/, scripts/ and test/support/; specs are left out (a `describe` block is
// one long function by nature). The TypeScript parser runs without type information: no rule here
// needs types, so lint builds no program and stays fast.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/**', '**/dist/**', 'node_modules/**', '.data/**', 'libs/persistence/src/generated/**', '**/*.spec.ts', '**/*.e2e-spec.ts'],
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts', 'scripts/**/*.ts', 'test/support/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    // Off: directives for rules not enabled here (no-control-regex in libs/contracts) stay for editors.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
);

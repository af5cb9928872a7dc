// Unit specs sit beside the code (*.spec.ts); end-to-end and fault specs live in test/ (*.e2e-spec.ts).
/** @type {import('jest').Config} */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Build output and installed example packages hold copies of package.json files (haste collisions).
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/libs/.*/dist/', '<rootDir>/examples/.*/node_modules/', '<rootDir>/.data/'],
  moduleNameMapper: { '^@arvis/tool-sdk/testing$': '<rootDir>/libs/tool-sdk/src/testing/index.ts', '^@arvis/(.*)$': '<rootDir>/libs/$1/src/index.ts', '^(\\.{1,2}/.*)\\.js$': '$1' },
};
module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/tools/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts', '<rootDir>/deploy/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'e2e',
      // An example package's own specs, run against the SDK's sources (its testing kit included).
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/examples/*/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-timeout.ts'],
    },
  ],
};

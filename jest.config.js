/** One jest run for the whole repo: `npm test`. Projects keep each package's tests separate. */
const swc = ['@swc/jest', { swcrc: false, jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' } }];
// NestJS 12 ships ES modules; Node 20's jest runtime loads CommonJS, so those packages are compiled too.
const swcJs = ['@swc/jest', { swcrc: false, jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const nestTransform = { '^.+\\.ts$': swc, '^.+/node_modules/(@nestjs|nestjs-pino)/.+\\.js$': swcJs };
const nestIgnore = ['/node_modules/(?!(@nestjs|nestjs-pino)/)'];
// Backend tests use the engine's source, so they need no engine build.
// The web app: TSX with React's automatic runtime, compiled to CommonJS for jest.
const swcTsx = ['@swc/jest', { swcrc: false, jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }];
// The shared contracts likewise: Node's "node" export condition would pick their compiled dist/.
const engineFromSource = { '^@kestrel/matching-engine$': '<rootDir>/../matching-engine/src/index.ts', '^@kestrel/contracts$': '<rootDir>/../contracts/src/index.ts' };
module.exports = {
  // Medium-tier tests start the whole app on real services; a few take several seconds.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'matching-engine',
      rootDir: '<rootDir>/matching-engine',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
    },
    {
      // Shared types and the pure proof-of-liabilities tree and verifier (with its CLI).
      displayName: 'contracts',
      rootDir: '<rootDir>/contracts',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
    },
    {
      displayName: 'backend-unit',
      rootDir: '<rootDir>/backend',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform: nestTransform,
      transformIgnorePatterns: nestIgnore,
      moduleNameMapper: engineFromSource,
      testEnvironment: 'node',
    },
    {
      displayName: 'backend-medium',
      rootDir: '<rootDir>/backend',
      testMatch: ['<rootDir>/test/**/*.spec.ts'],
      transform: nestTransform,
      transformIgnorePatterns: nestIgnore,
      moduleNameMapper: engineFromSource,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'frontend',
      rootDir: '<rootDir>/frontend',
      testMatch: ['<rootDir>/src/**/*.spec.{ts,tsx}'],
      transform: { '^.+\\.tsx?$': swcTsx },
      moduleNameMapper: { '\\.css$': '<rootDir>/test/style-stub.js' },
      setupFiles: ['<rootDir>/test/polyfills.js'],
      setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
      testEnvironment: 'jsdom',
    },
    {
      // Playwright (system Chromium) against the real stack started on a fresh database.
      displayName: 'frontend-e2e',
      rootDir: '<rootDir>/frontend',
      testMatch: ['<rootDir>/e2e/**/*.e2e.spec.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
    },
  ],
};

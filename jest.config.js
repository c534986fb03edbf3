const { checkTestRequirements } = require('./test/helpers/test-requirements');

/** @type {() => Promise<import('jest').Config>} */
module.exports = async () => {
  // Suites needing a service that is not there (PostgreSQL, Redis, the ONNX runtime) are left out with one
  // line saying how to provide it; under CI_REQUIRE_ALL=1 a missing service fails the run instead.
  const unavailable = await checkTestRequirements();
  // Tests never ask the machine's DNS resolver: the DNS discovery suite turns it on with a loopback responder.
  process.env.CRAWL_DNS_DISCOVERY ??= 'false';
  return {
    // Node's environment with the main realm's typed arrays: onnxruntime-node (the bundled model's runtime) needs them.
    testEnvironment: '<rootDir>/test/helpers/native-typed-arrays-environment.js',
    // Jest 30's "soft" deletion of globals between files wraps their setters; with the registry's worker-thread
    // and ONNX globals a wrapped setter re-entered itself ("Maximum call stack size exceeded" in
    // emitAccessWarning) and failed a random suite at start in about one full run of two.
    testEnvironmentOptions: { globalsCleanup: 'off' },
    roots: ['<rootDir>/test'],
    testMatch: ['**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', ...unavailable.map((file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)],
    transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
    transformIgnorePatterns: ['/node_modules/(?!(@apidevtools/json-schema-ref-parser|@jsdevtools)/)'],
    globalSetup: '<rootDir>/test/helpers/global-setup.ts',
    testTimeout: 60000,
    maxWorkers: 2,
  };
};

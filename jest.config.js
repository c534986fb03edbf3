/** @type {import('jest').Config} */
module.exports = {
  // Node's environment with the main realm's typed arrays: onnxruntime-node (the bundled model's runtime) needs them.
  testEnvironment: '<rootDir>/test/helpers/native-typed-arrays-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(@apidevtools/json-schema-ref-parser|@jsdevtools)/)'],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};

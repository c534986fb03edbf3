// ESLint (flat config): typescript-eslint's recommended rules, no import cycles, and the layering of
// docs/architecture.md held by the linter: each framework is imported only by the layer that owns it, and the
// domain never imports a transport or the process entry.
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Packages only one folder may import: the folder, and the packages. */
const OWNED_PACKAGES = [
  {
    folder: 'src/outbound',
    packages: ['undici'],
    why: 'every outbound HTTP call goes through src/outbound/ (timeouts, size caps, SSRF guard)',
  },
  {
    folder: 'src/http',
    packages: ['express', 'openapi-backend', 'cors', 'helmet', 'pino-http', 'express-rate-limit', 'rate-limit-redis'],
    why: 'the HTTP transport lives in src/http/; the domain knows no web framework',
  },
  { folder: 'src/mcp', packages: ['@modelcontextprotocol/sdk'], why: 'the MCP transport lives in src/mcp/; the domain knows no MCP SDK' },
];

/** no-restricted-imports for a file in `folder` (or outside every owning folder): every other folder's packages. */
function restrictedImports(folder) {
  const patterns = OWNED_PACKAGES.filter((o) => o.folder !== folder).flatMap((o) =>
    o.packages.map((name) => ({ group: [name, `${name}/**`], message: `${name} is imported only in ${o.folder}/: ${o.why}.` })),
  );
  // The benchmark's ablations swap stages of the ranking pipeline; production code never imports them.
  patterns.push({
    group: ['**/relevance/ablations'],
    message: 'relevance/ablations.ts is for bench/ and test/ only: production runs PRODUCTION_STAGES.',
  });
  return ['error', { patterns }];
}

/** Folders of the domain and below, which must not import the transports or the process entry (docs/architecture.md). */
const INNER = [
  'src/search',
  'src/listing',
  'src/federation',
  'src/crawl',
  'src/ingest',
  'src/alexandria',
  'src/catalog',
  'src/liveness',
  'src/embedding',
  'src/observability',
  'src/db',
  'src/outbound',
];
const OUTER = ['src/http', 'src/mcp', 'src/portal', 'src/cli.ts', 'src/server.ts', 'src/context.ts'];
/**
 * The domain folders in dependency order: a folder imports only folders before it, so no two folders import
 * each other (a cycle between folders, not only between modules, fails the lint).
 */
const DOMAIN = [
  'src/catalog',
  'src/liveness',
  'src/embedding',
  'src/search',
  'src/listing',
  'src/alexandria',
  'src/ingest',
  'src/federation',
  'src/crawl',
  'src/observability',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', '.data/**', 'coverage/**', 'src/listing/filter-parser.generated.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })],
    },
    rules: {
      // `_` marks an argument a signature requires but the body does not read.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A getter object that reads its owner's current state names the owner `self`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': restrictedImports(null),
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...INNER.map((target) => ({
              target,
              from: OUTER,
              message: 'the domain is called by the transports and the process entry, never the other way (docs/architecture.md).',
            })),
            ...['src/db', 'src/outbound'].map((target) => ({
              target,
              from: DOMAIN,
              message: 'src/db and src/outbound sit below the domain (docs/architecture.md).',
            })),
            ...DOMAIN.slice(0, -1).map((target, i) => ({
              target,
              from: DOMAIN.slice(i + 1),
              message: `the domain folders depend in the order ${DOMAIN.map((d) => d.slice(4)).join(' < ')}: a folder imports only those before it (docs/architecture.md).`,
            })),
          ],
        },
      ],
    },
  },
  ...OWNED_PACKAGES.map((o) => ({ files: [`${o.folder}/**/*.ts`], rules: { 'no-restricted-imports': restrictedImports(o.folder) } })),
  {
    // The developer portal is HTML over HTTP for browsers: a transport beside src/http/, mounted on its express app.
    files: ['src/portal/**/*.ts'],
    rules: { 'no-restricted-imports': restrictedImports('src/http') },
  },
  {
    // MCP over Streamable HTTP mounts the SDK's transport on the express app: the one file where both meet.
    files: ['src/mcp/http-transport.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: restrictedImports('src/mcp')[1].patterns.filter((p) => p.group[0] !== 'express') }],
    },
  },
  {
    // onnxruntime-node is CommonJS with a native binding: loaded with require() so that Jest's module registry loads it.
    files: ['src/embedding/use-lite-onnx.ts', 'test/helpers/tiny-onnx-model.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and benchmarks read untyped JSON responses and fakes; `any` stays out of src/ only.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The JavaScript around the TypeScript: the bin shim, jest's config and environment (CommonJS).
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

import fs from 'node:fs';
import path from 'node:path';
import { ALEXANDRIA_MEDIA_TYPE } from '../../src/alexandria/mapping';
import { ConfigError, DEFAULT_SEARCH_MATCH_CACHE_SIZE, DEFAULT_SEARCH_TYPE_WEIGHTS, envToConfig, readEnv } from '../../src/config';

describe('readEnv', () => {
  it('reads only the known variables, trimmed, and drops blank ones', () => {
    const env = readEnv({ PORT: ' 9000 ', LOG_LEVEL: '', UNRELATED: 'x', DATABASE_URL: 'postgres://h/db' });
    expect(env).toEqual({ PORT: '9000', DATABASE_URL: 'postgres://h/db' });
  });
});

describe('envToConfig', () => {
  it('applies the documented defaults', () => {
    const config = envToConfig({});
    // The foundation's settings; each area's group (crawl, ...) is tested with its area.
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: null,
      databaseReplicaUrls: [],
      databaseReplicaMaxLagSeconds: 10,
      databaseReplicaCheckMs: 2000,
      databasePreparedStatements: true,
      dataDir: path.resolve('.data'),
      publicUrl: 'http://localhost:8080/',
      logLevel: 'info',
      logFormat: 'auto',
      loadDemoCorpus: true,
      pageTokenSecret: null,
      adminToken: null,
      peers: [],
      federationBudgetMs: 1500,
      federationMaxHops: 1,
      federationMaxConcurrency: 32,
      federationBreakerThreshold: 3,
      federationBreakerCooldownMs: 30000,
      crawlAllowPrivate: false,
      rateLimitPerMinute: 600,
      redisUrl: null,
      requestTimeoutMs: 10000,
      maxBodyBytes: 65536,
      embeddingModelDir: null,
      embeddingRuntime: 'auto',
      embeddingPrecision: 'int8',
      searchTypeWeights: { [ALEXANDRIA_MEDIA_TYPE]: 0.9 },
    });
    // config.ts spells the library's media type out (the config knows no domain module): the same string.
    expect(Object.keys(DEFAULT_SEARCH_TYPE_WEIGHTS)).toEqual([ALEXANDRIA_MEDIA_TYPE]);
  });

  it('reads SEARCH_TYPE_WEIGHTS as media/type=weight pairs, or none', () => {
    expect(
      envToConfig({ SEARCH_TYPE_WEIGHTS: 'application/vnd.alexandria.resource+json=0.5, application/a2a-agent-card+json=1' })
        .searchTypeWeights,
    ).toEqual({
      'application/vnd.alexandria.resource+json': 0.5,
      'application/a2a-agent-card+json': 1,
    });
    expect(envToConfig({ SEARCH_TYPE_WEIGHTS: 'none' }).searchTypeWeights).toEqual({});
    expect(envToConfig({ SEARCH_TYPE_WEIGHTS: 'NONE' }).searchTypeWeights).toEqual({});
  });

  it('reads SEARCH_SYNONYMS_FILE, SEARCH_RELATED_WORDS_FILE and SEARCH_GLOSSARY_FILE as absolute paths; none by default', () => {
    expect(envToConfig({})).toMatchObject({ searchSynonymsFile: null, searchRelatedWordsFile: null, searchGlossaryFile: null });
    const config = envToConfig(
      readEnv({
        SEARCH_SYNONYMS_FILE: 'vocab/synonyms.json',
        SEARCH_RELATED_WORDS_FILE: '/etc/ard/related.json',
        SEARCH_GLOSSARY_FILE: 'vocab/glossary.json',
      }),
    );
    expect(config.searchSynonymsFile).toBe(path.resolve('vocab/synonyms.json'));
    expect(config.searchRelatedWordsFile).toBe('/etc/ard/related.json');
    expect(config.searchGlossaryFile).toBe(path.resolve('vocab/glossary.json'));
  });

  it('reads TRUST_BINDING, TRUST_RECHECK_SECONDS and TRUST_POLL_MS (docs/trust.md), rejecting bad values by name', () => {
    expect(envToConfig({})).toMatchObject({ trustBinding: 'reject', trustRecheckSeconds: 86400, trustPollMs: 30000 });
    expect(envToConfig(readEnv({ TRUST_BINDING: 'flag', TRUST_RECHECK_SECONDS: '3600', TRUST_POLL_MS: '0' }))).toMatchObject({
      trustBinding: 'flag',
      trustRecheckSeconds: 3600,
      trustPollMs: 0,
    });
    expect(() => envToConfig({ TRUST_BINDING: 'warn' })).toThrow("TRUST_BINDING must be one of reject, flag; got 'warn'");
    expect(() => envToConfig({ TRUST_RECHECK_SECONDS: '5' })).toThrow('TRUST_RECHECK_SECONDS must be between 60');
  });

  it('turns the demo corpus off by default when DATABASE_URL is set, and derives PUBLIC_URL from PORT', () => {
    const config = envToConfig({ DATABASE_URL: 'postgres://db/ard', PORT: '9090' });
    expect(config.loadDemoCorpus).toBe(false);
    expect(config.publicUrl).toBe('http://localhost:9090/');
    expect(config.databaseUrl).toBe('postgres://db/ard');
  });

  it('reads explicit values', () => {
    const config = envToConfig({
      LOAD_DEMO_CORPUS: 'off',
      CRAWL_ALLOW_PRIVATE: 'YES',
      PEERS: 'https://a.example/ , https://b.example/api',
      PUBLIC_URL: 'https://registry.example/base',
      DATA_DIR: '/tmp/ard-data',
      LOG_LEVEL: 'debug',
      DATABASE_PREPARED_STATEMENTS: 'false',
      EMBEDDING_RUNTIME: 'tfjs',
      EMBEDDING_PRECISION: 'float32',
    });
    expect(config.embeddingRuntime).toBe('tfjs');
    expect(config.embeddingPrecision).toBe('float32');
    expect(config.databasePreparedStatements).toBe(false);
    expect(config.loadDemoCorpus).toBe(false);
    expect(config.crawlAllowPrivate).toBe(true);
    expect(config.peers).toEqual(['https://a.example/', 'https://b.example/api']);
    expect(config.publicUrl).toBe('https://registry.example/base');
    expect(config.dataDir).toBe('/tmp/ard-data');
    expect(config.logLevel).toBe('debug');
  });

  it.each([
    ['PORT', 'eighty', /PORT must be an integer; got 'eighty'/],
    ['PORT', '70000', /PORT must be between 0 and 65535; got 70000/],
    ['PORT', '1.5', /PORT must be an integer/],
    ['FEDERATION_MAX_HOPS', '9', /FEDERATION_MAX_HOPS must be between 0 and 8; got 9/],
    ['FEDERATION_BUDGET_MS', '10', /FEDERATION_BUDGET_MS must be between 50 and 60000/],
    ['RATE_LIMIT_PER_MINUTE', '-1', /RATE_LIMIT_PER_MINUTE must be between 0/],
    ['REQUEST_TIMEOUT_MS', 'soon', /REQUEST_TIMEOUT_MS must be an integer/],
    ['MAX_BODY_BYTES', '12', /MAX_BODY_BYTES must be between 1024/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got 'loud'/],
    ['EMBEDDING_RUNTIME', 'gpu', /EMBEDDING_RUNTIME must be one of auto, onnxruntime, tfjs; got 'gpu'/],
    ['EMBEDDING_PRECISION', 'int4', /EMBEDDING_PRECISION must be one of int8, float32; got 'int4'/],
    ['LOAD_DEMO_CORPUS', 'maybe', /LOAD_DEMO_CORPUS must be true or false; got 'maybe'/],
    ['CRAWL_ALLOW_PRIVATE', '2', /CRAWL_ALLOW_PRIVATE must be true or false/],
    ['PUBLIC_URL', 'registry.example', /PUBLIC_URL must be an absolute http\(s\) URL; got 'registry.example'/],
    ['PUBLIC_URL', 'ftp://registry.example/', /PUBLIC_URL must be an absolute http\(s\) URL/],
    [
      'SEARCH_TYPE_WEIGHTS',
      'application/x=0',
      /SEARCH_TYPE_WEIGHTS: the weight of application\/x must be greater than 0 and at most 1; got 0/,
    ],
    ['SEARCH_TYPE_WEIGHTS', 'application/x=1.5', /the weight of application\/x must be greater than 0 and at most 1; got 1.5/],
    [
      'SEARCH_TYPE_WEIGHTS',
      'application/x',
      /SEARCH_TYPE_WEIGHTS must be 'none' or a comma-separated list of media\/type=weight; 'application\/x' is not one/,
    ],
    ['SEARCH_TYPE_WEIGHTS', 'papers=0.5', /'papers=0.5' is not one/],
    ['SEARCH_TYPE_WEIGHTS', 'application/x=half', /'application\/x=half' is not one/],
    ['SEARCH_TYPE_WEIGHTS', 'application/x=0.5,application/x=0.6', /SEARCH_TYPE_WEIGHTS names application\/x twice/],
    ['PEERS', 'https://ok.example/,not a url', /PEERS must be a comma-separated list of absolute URLs; 'not a url' is not one/],
    ['DATABASE_REPLICA_URL', 'postgres://replica/ard', /DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no replicas/],
  ])('rejects %s=%s with a ConfigError naming the variable', (name, value, message) => {
    let thrown: unknown;
    try {
      envToConfig({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('names every bad variable at once, one per line', () => {
    expect(() => envToConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', CRAWL_MAX_DEPTH: '11' })).toThrow(
      new ConfigError(
        [
          "PORT must be an integer; got 'eighty'",
          "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got 'loud'",
          'CRAWL_MAX_DEPTH must be between 0 and 10; got 11',
        ].join('\n'),
      ),
    );
  });

  it('accepts a comma-separated list of replicas next to DATABASE_URL, with their lag limit and check interval', () => {
    const config = envToConfig({
      DATABASE_URL: 'postgres://primary/ard',
      DATABASE_REPLICA_URL: 'postgres://replica-a/ard, postgresql://replica-b:5433/ard',
      DATABASE_REPLICA_MAX_LAG_SECONDS: '30',
      DATABASE_REPLICA_CHECK_MS: '500',
    });
    expect(config.databaseReplicaUrls).toEqual(['postgres://replica-a/ard', 'postgresql://replica-b:5433/ard']);
    expect(config).toMatchObject({ databaseReplicaMaxLagSeconds: 30, databaseReplicaCheckMs: 500 });
  });

  it('rejects a replica list item that is not a postgres:// URL, naming it', () => {
    expect(() => envToConfig({ DATABASE_URL: 'postgres://primary/ard', DATABASE_REPLICA_URL: 'postgres://a/ard,http://b/ard' })).toThrow(
      "DATABASE_REPLICA_URL must be a comma-separated list of postgres:// URLs; 'http://b/ard' is not one",
    );
  });
});

describe('documentation', () => {
  it('reads the LIVENESS_* settings and TRUST_RANK_BOOST (docs/liveness.md), rejecting bad values by name', () => {
    expect(envToConfig({})).toMatchObject({
      trustRankBoost: 0,
      liveness: {
        probes: true,
        pollMs: 60000,
        intervalSeconds: 3600,
        budget: 2000,
        concurrency: 4,
        timeoutMs: 10000,
        deadAfterSeconds: 259200,
        dropAfterSeconds: 604800,
        demotion: 0.3,
      },
    });
    const set = envToConfig(
      readEnv({
        TRUST_RANK_BOOST: '0.25',
        LIVENESS_PROBES: 'off',
        LIVENESS_DEMOTION: '0',
        LIVENESS_DROP_AFTER_SECONDS: '0',
        LIVENESS_ROUND_BUDGET: '50',
      }),
    );
    expect(set).toMatchObject({ trustRankBoost: 0.25, liveness: { probes: false, demotion: 0, dropAfterSeconds: 0, budget: 50 } });
    expect(() => envToConfig({ LIVENESS_DEMOTION: '1.5' })).toThrow('LIVENESS_DEMOTION must be a number from 0 to 1; got 1.5');
    expect(() => envToConfig({ TRUST_RANK_BOOST: '-0.1' })).toThrow("TRUST_RANK_BOOST must be a number from 0 to 1; got '-0.1'");
    expect(() => envToConfig({ LIVENESS_INTERVAL_SECONDS: '5' })).toThrow(
      'LIVENESS_INTERVAL_SECONDS must be between 60 and 2592000; got 5',
    );
  });

  it('reads SEARCH_MATCH_CACHE_SIZE (matches kept; 0 = no cache), rejecting bad values by name', () => {
    expect(envToConfig(readEnv({})).searchMatchCacheSize).toBe(DEFAULT_SEARCH_MATCH_CACHE_SIZE);
    expect(envToConfig(readEnv({ SEARCH_MATCH_CACHE_SIZE: '0' })).searchMatchCacheSize).toBe(0);
    expect(envToConfig(readEnv({ SEARCH_MATCH_CACHE_SIZE: '2000' })).searchMatchCacheSize).toBe(2000);
    expect(() => envToConfig({ SEARCH_MATCH_CACHE_SIZE: 'lots' })).toThrow("SEARCH_MATCH_CACHE_SIZE must be an integer; got 'lots'");
    expect(() => envToConfig({ SEARCH_MATCH_CACHE_SIZE: '-1' })).toThrow('SEARCH_MATCH_CACHE_SIZE must be between 0 and 10000000; got -1');
  });

  it('docs/configuration.md lists every variable readEnv reads', () => {
    const read: string[] = [];
    readEnv(new Proxy({}, { get: (_target, name) => (read.push(String(name)), undefined) }));
    const doc = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(read.length).toBeGreaterThan(10);
    expect(read.filter((name) => !doc.includes(`| \`${name}\` |`))).toEqual([]);
  });
});

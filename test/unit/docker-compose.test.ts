import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const root = path.resolve(__dirname, '..', '..');

describe('docker-compose.yml', () => {
  const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));

  it('runs PostgreSQL with pgvector and the registry pointed at it', () => {
    expect(compose.services.db.image).toBe('pgvector/pgvector:pg16');
    const { environment, depends_on: dependsOn, build } = compose.services.registry;
    const url = new URL(environment.DATABASE_URL);
    expect(url.hostname).toBe('db');
    expect(url.username).toBe(compose.services.db.environment.POSTGRES_USER);
    expect(url.pathname).toBe(`/${compose.services.db.environment.POSTGRES_DB}`);
    expect(environment.LOAD_DEMO_CORPUS).toBe('true');
    expect(dependsOn.db.condition).toBe('service_healthy');
    expect(build).toBe('.');
    expect(compose.services.registry.healthcheck.test.join(' ')).toContain('/healthz');
  });

  it('builds from a Dockerfile that starts `ard-registry serve`', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-slim$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "bin\/ard-registry.js", "serve"\]$/m);
  });
});

// deploy/kubernetes/: the plain manifests parse, name only settings the registry reads (with values it accepts),
// probe the routes and port the app serves, run real CLI commands, and refer to each other by the right names.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { main } from '../../src/cli';
import { envToConfig, readEnv } from '../../src/config';

const root = path.resolve(__dirname, '..', '..');
const dir = path.join(root, 'deploy', 'kubernetes');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: any;
}

const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const manifests: Array<{ file: string; doc: Manifest }> = files.flatMap((file) =>
  YAML.parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8')).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return { file, doc: d.toJS() as Manifest };
  }),
);
const find = (kind: string, name?: string): Manifest => {
  const found = manifests.filter((m) => m.doc.kind === kind && (name === undefined || m.doc.metadata?.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0].doc;
};
const deployment = () => find('Deployment');
const podSpec = (m: Manifest) => m.spec.template.spec;
const containersOf = (m: Manifest): any[] => [...(podSpec(m).initContainers ?? []), ...podSpec(m).containers];

/** Every variable readEnv reads: the registry's settings (src/config.ts ENV_SCHEMA). */
function settingNames(): Set<string> {
  const read = new Set<string>();
  readEnv(new Proxy({}, { get: (_target, name) => (read.add(String(name)), undefined) }));
  return read;
}

/** What a pod's environment holds: the ConfigMaps and Secrets it names, then its own env entries. */
function podEnvironment(m: Manifest, container: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, find('ConfigMap', from.configMapRef.name).data);
    if (from.secretRef) Object.assign(env, find('Secret', from.secretRef.name).stringData);
  }
  for (const item of container.env ?? []) env[item.name] = item.value;
  return env;
}

async function cliAnswers(argv: string[]): Promise<number> {
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return await main(argv);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('deploy/kubernetes', () => {
  it('parses, every document a Kubernetes object, and the kustomization lists every file', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const { file, doc } of manifests) {
      expect([file, typeof doc.apiVersion, typeof doc.kind]).toEqual([file, 'string', 'string']);
      if (doc.kind !== 'Kustomization') expect([file, doc.metadata?.name]).toEqual([file, expect.stringMatching(/^ard-registry/)]);
    }
    const kustomization = find('Kustomization');
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('names only settings the registry reads, with values it accepts', () => {
    const known = settingNames();
    const named = [
      ...Object.keys(find('ConfigMap').data),
      ...Object.keys(find('Secret').stringData),
      ...manifests.flatMap(({ doc }) =>
        doc.spec?.template ? containersOf(doc).flatMap((c) => (c.env ?? []).map((e: any) => e.name)) : [],
      ),
    ];
    expect(named.filter((name) => !known.has(name))).toEqual([]);
    const config = envToConfig(readEnv(podEnvironment(deployment(), podSpec(deployment()).containers[0])));
    expect(config.databaseReplicaUrls).toHaveLength(2);
    expect(config.redisUrl).toMatch(/^redis:\/\//);
  });

  it('probes /healthz (liveness) and /readyz (readiness) on the port the registry listens on', () => {
    const [container] = podSpec(deployment()).containers;
    const config = envToConfig(readEnv(podEnvironment(deployment(), container)));
    const http = container.ports.find((p: any) => p.name === 'http');
    expect(http.containerPort).toBe(config.port);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    const app = fs.readFileSync(path.join(root, 'src', 'http', 'app.ts'), 'utf8');
    expect(app).toContain("app.get('/healthz'");
    expect(app).toContain("app.get('/readyz'");
    // Shutdown answers what was received within REQUEST_TIMEOUT_MS; the grace period must cover it.
    expect(podSpec(deployment()).terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.requestTimeoutMs + 1000);
  });

  it('runs the CLI of the image: `serve` in the Deployment, `migrate` once in the Job', async () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(fs.existsSync(path.join(root, 'bin', 'ard-registry.js'))).toBe(true);
    const job = find('Job');
    expect(containersOf(deployment()).map((c) => c.command)).toEqual([['node', 'bin/ard-registry.js', 'serve']]);
    expect(containersOf(job).map((c) => c.command)).toEqual([['node', 'bin/ard-registry.js', 'migrate']]);
    expect(job.spec.template.spec.restartPolicy).toBe('OnFailure');
    for (const command of ['serve', 'migrate']) expect([command, await cliAnswers([command, '--help'])]).toEqual([command, 0]);
    expect(await cliAnswers(['no-such-command', '--help'])).toBe(2);
    // The image's user (node, uid 1000 in the node images) is the one the pods run as.
    for (const m of [deployment(), job]) expect(podSpec(m).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
  });

  it('refers to each other by name: selectors match the pods, the Service the named port, the autoscaler the Deployment', () => {
    const d = deployment();
    const podLabels = d.spec.template.metadata.labels;
    expect(podLabels).toMatchObject(d.spec.selector.matchLabels);
    expect(podLabels).toMatchObject(find('Service').spec.selector);
    expect(find('Service').spec.ports[0].targetPort).toBe('http');
    expect(podLabels).toMatchObject(find('PodDisruptionBudget').spec.selector.matchLabels);
    expect(find('HorizontalPodAutoscaler').spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: d.metadata.name,
    });
    // The Job's pods are not the Service's: a migration never receives traffic.
    expect(find('Job').spec.template.metadata.labels).not.toMatchObject(find('Service').spec.selector);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ENV_DOCS, fileBacked } from '@arvis/config';
import { z } from 'zod';
import { COMPONENTS } from '../../scripts/configuration-reference/configuration-reference';

// ADR 0066. kubectl renders the Kustomize tree (the project's machines have it on PATH; without it
// this fails, never skips). No cluster is reachable, so `kubectl apply --dry-run` cannot validate
// against the API server's schemas: every rendered object is validated against the Kubernetes
// OpenAPI schemas the pinned `kubernetes-models` package ships (validate-against-kubernetes-schemas.mjs),
// then checked for what this project gets wrong: variables the code does not read, secrets not
// from files, probes on routes that do not exist, mutable image tags, paths the image does not
// hold, a container that may run as root.
const ROOT = join(__dirname, '..', '..');
const DIR = __dirname;
const OVERLAYS = ['base', 'overlays/production'];

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: any; data?: Record<string, string> };
const render = (dir: string): Obj[] =>
  parseAllDocuments(execFileSync('kubectl', ['kustomize', join(DIR, dir)], { encoding: 'utf8', stdio: 'pipe' })).map((d) => d.toJSON() as Obj);

/** The component whose schema each command's process parses. */
const COMPONENT_OF_COMMAND: Record<string, string> = {
  'dist/apps/authorizer/src/main.js': 'authorizer',
  'dist/apps/dispatcher/src/main.js': 'dispatcher',
  'dist/apps/relay/src/main.js': 'relay',
  'dist/apps/mcp/src/main.js': 'mcp',
  'dist/scripts/migrate.js': 'migrate',
  'dist/scripts/create-topics.js': 'topics',
  'dist/scripts/apply-kafka-acls.js': 'kafka:acls',
};
/** The HealthController's routes, all on the management port (ADR 0038). */
const MANAGEMENT_ROUTES = ['/health/live', '/health/ready', '/metrics'];
/** Made by the operator, never shipped (they hold secrets or the deployment's CA): ../README.md lists them. */
const MADE_BY_THE_OPERATOR = { Secret: ['arvis-authorizer', 'arvis-dispatcher', 'arvis-relay', 'arvis-mcp', 'arvis-migrate', 'arvis-kafka-admin'], ConfigMap: ['arvis-kafka-ca'] };
const WORKLOAD_KINDS = ['Deployment', 'Job'];

/** Problems the Kubernetes schemas find in these objects (an ES module run by node: the package is one). */
const schemaProblems = (objects: unknown[]): { object: string; problem: string }[] =>
  JSON.parse(execFileSync(process.execPath, [join(DIR, 'validate-against-kubernetes-schemas.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', stdio: 'pipe' }));

const schemaOf = (component: string) => COMPONENTS.find((c) => c.name === component)!.schema as z.ZodObject;

describe('the Kubernetes schema validation', () => {
  it('names a wrong type, a missing required field and a kind it has no schema for', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', image: 'i:1', ports: [{ containerPort: '8080' }] }] } } } };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ image: 'i:1' }] } } } };
    expect(schemaProblems([deployment, job, { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } }])).toEqual([
      { object: 'Deployment/d (apps/v1)', problem: '/spec/template/spec/containers/0/ports/0/containerPort must be integer' },
      { object: 'Job/j (batch/v1)', problem: '/spec/template/spec/containers/0 must have required property name' },
      { object: 'Deploymnet/x (apps/v1)', problem: 'no schema for this apiVersion and kind' },
    ]);
  });
});

describe.each(OVERLAYS)('deploy/kubernetes/%s', (dir) => {
  const objects = render(dir);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const workloads = objects.filter((o) => WORKLOAD_KINDS.includes(o.kind));
  const podOf = (w: Obj) => w.spec.template.spec;
  const containers = workloads.flatMap((w) => (podOf(w).containers as any[]).map((c) => ({ w, c })));
  const configMap = (name: string) => byKind('ConfigMap').find((m) => m.metadata.name === name);

  it('renders the four services, the migrate, topics and ACL jobs, their budgets and policies', () => {
    expect(byKind('Deployment').map((d) => d.metadata.name).sort()).toEqual(['arvis-authorizer', 'arvis-dispatcher', 'arvis-mcp', 'arvis-relay']);
    expect(byKind('Job').map((d) => d.metadata.name).sort()).toEqual(['arvis-kafka-acls', 'arvis-migrate', 'arvis-topics']);
    expect(byKind('PodDisruptionBudget').map((d) => d.spec.selector.matchLabels['app.kubernetes.io/name']).sort()).toEqual(['arvis-authorizer', 'arvis-dispatcher', 'arvis-mcp', 'arvis-relay']);
    expect(byKind('NetworkPolicy').length).toBeGreaterThan(0);
    for (const o of objects) {
      expect([o.apiVersion, o.kind, o.metadata?.name].every((x) => typeof x === 'string' && x.length > 0)).toBe(true);
      if (dir !== 'base') expect(o.metadata.namespace).toBe('arvis');
    }
  });

  it('holds only objects the Kubernetes API schemas accept', () => {
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('selects its own pods: each Deployment\'s selector matches its template, each Service and budget a Deployment', () => {
    for (const d of byKind('Deployment')) expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    const podLabels = byKind('Deployment').map((d) => d.spec.template.metadata.labels as Record<string, string>);
    const selects = (sel: Record<string, string>) => podLabels.some((l) => Object.entries(sel).every(([k, v]) => l[k] === v));
    for (const s of byKind('Service')) expect([s.metadata.name, selects(s.spec.selector)]).toEqual([s.metadata.name, true]);
    for (const p of byKind('PodDisruptionBudget')) expect(selects(p.spec.selector.matchLabels)).toBe(true);
    // A policy selecting no pod protects nothing (a label kustomize left off the templates).
    for (const n of byKind('NetworkPolicy')) expect([n.metadata.name, selects(n.spec.podSelector.matchLabels)]).toEqual([n.metadata.name, true]);
    // Every Service port targets a named port of the pods it selects.
    for (const s of byKind('Service')) {
      const d = byKind('Deployment').find((x) => Object.entries(s.spec.selector).every(([k, v]) => x.spec.template.metadata.labels[k] === v))!;
      const named = podOf(d).containers.flatMap((c: any) => (c.ports ?? []).map((p: any) => p.name));
      for (const p of s.spec.ports) expect(named).toContain(p.targetPort);
    }
  });

  it('names only variables the process\'s schema reads, with values it accepts, and every secret from a file', () => {
    const problems: string[] = [];
    for (const { w, c } of containers) {
      const command = (c.command as string[]).join(' ');
      const component = COMPONENT_OF_COMMAND[(c.command as string[])[1]];
      if (!component) {
        problems.push(`${w.metadata.name}: no component runs ${command}`);
        continue;
      }
      const shape = schemaOf(component).shape as Record<string, z.ZodType>;
      const vars: [string, unknown][] = [];
      for (const from of c.envFrom ?? []) {
        const m = configMap(from.configMapRef.name);
        if (!m) problems.push(`${w.metadata.name}: ConfigMap ${from.configMapRef.name} is not rendered`);
        vars.push(...Object.entries(m?.data ?? {}));
      }
      for (const e of c.env ?? []) {
        if (e.valueFrom) problems.push(`${w.metadata.name}: ${e.name} from valueFrom: a secret is a mounted file (<NAME>_FILE), a setting a value`);
        vars.push([e.name, e.value]);
      }
      for (const [name, value] of vars) {
        const base = name.endsWith('_FILE') && !(name in shape) ? name.slice(0, -'_FILE'.length) : undefined;
        if (base !== undefined) {
          if (!(base in shape) || !fileBacked(base)) problems.push(`${w.metadata.name} (${component}): ${name}: ${base} cannot come from a file`);
          continue;
        }
        if (!(name in shape)) {
          problems.push(`${w.metadata.name} (${component}): ${name} is not read`);
          continue;
        }
        if (ENV_DOCS[name]?.secret) problems.push(`${w.metadata.name}: ${name} is a secret: mount it and set ${name}_FILE`);
        const parsed = shape[name].safeParse(value);
        if (!parsed.success) problems.push(`${w.metadata.name} (${component}): ${name}=${String(value)}: ${parsed.error.issues[0]?.message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('points every *_FILE at a key of a mounted secret or ConfigMap, and mounts only what the operator makes or the tree holds', () => {
    const problems: string[] = [];
    for (const { w, c } of containers) {
      const volumes = new Map<string, any>((podOf(w).volumes ?? []).map((v: any) => [v.name, v]));
      const mounted = (c.volumeMounts ?? []).flatMap((m: any) => {
        const v = volumes.get(m.name);
        const source = v?.secret ?? v?.configMap;
        return source ? (source.items ?? []).map((i: any) => `${m.mountPath}/${i.path}`) : [];
      });
      const envFiles = (c.env ?? []).filter((e: any) => e.name.endsWith('_FILE')).map((e: any) => [e.name, e.value]);
      const fromMaps = (c.envFrom ?? []).flatMap((f: any) => Object.entries(configMap(f.configMapRef.name)?.data ?? {}).filter(([k]) => k.endsWith('_FILE')));
      for (const [name, path] of [...envFiles, ...fromMaps]) if (!mounted.includes(path)) problems.push(`${w.metadata.name}: ${name}=${path} is no mounted key`);
      for (const v of volumes.values()) {
        if (v.secret && !MADE_BY_THE_OPERATOR.Secret.includes(v.secret.secretName)) problems.push(`${w.metadata.name}: Secret ${v.secret.secretName} is not in the operator's list`);
        if (v.configMap && !configMap(v.configMap.name) && !MADE_BY_THE_OPERATOR.ConfigMap.includes(v.configMap.name)) problems.push(`${w.metadata.name}: ConfigMap ${v.configMap.name} is neither rendered nor the operator's`);
        if (v.secret && !v.secret.items) problems.push(`${w.metadata.name}: Secret ${v.secret.secretName} mounted without items (every key would land)`);
      }
    }
    expect(problems).toEqual([]);
    expect(byKind('Secret')).toEqual([]); // no secret value ships in the tree
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const name of [...MADE_BY_THE_OPERATOR.Secret, ...MADE_BY_THE_OPERATOR.ConfigMap]) expect(readme).toContain(`\`${name}\``);
  });

  it('probes each service on its management port, on routes the management port serves', () => {
    for (const d of byKind('Deployment')) {
      const [c] = podOf(d).containers;
      const management = (c.ports as any[]).find((p) => p.name === 'management');
      const env = new Map<string, string>((c.env ?? []).map((e: any) => [e.name, e.value]));
      expect([d.metadata.name, String(management?.containerPort)]).toEqual([d.metadata.name, env.get('MANAGEMENT_PORT')]);
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
        expect([d.metadata.name, probe, c[probe]?.httpGet?.port]).toEqual([d.metadata.name, probe, 'management']);
        expect(MANAGEMENT_ROUTES).toContain(c[probe].httpGet.path);
      }
      expect(c.readinessProbe.httpGet.path).toBe('/health/ready');
      expect(c.livenessProbe.httpGet.path).toBe('/health/live');
      // The process binds every address inside the pod, or the probes cannot reach it.
      const common = (c.envFrom ?? []).map((f: any) => configMap(f.configMapRef.name)?.data ?? {});
      expect(env.get('HTTP_HOST') ?? common.find((m: Record<string, string>) => m.HTTP_HOST)?.HTTP_HOST).toBe('0.0.0.0');
    }
    const routes = readFileSync(join(ROOT, 'libs/runtime/src/health.controller.ts'), 'utf8');
    for (const r of MANAGEMENT_ROUTES) expect(routes).toContain(`@Get('${r.slice(1)}')`);
  });

  it('runs a released image by tag, never :latest, as the image\'s non-root user with a read-only root, within limits', () => {
    for (const { w, c } of containers) {
      expect([w.metadata.name, c.image]).toEqual([w.metadata.name, expect.stringMatching(/^[^:@\s]+(:[0-9][^:\s]*|@sha256:[0-9a-f]{64})$/)]);
      expect(c.image).not.toMatch(/:latest$/);
      const pod = podOf(w).securityContext;
      expect([w.metadata.name, pod.runAsNonRoot, pod.runAsUser, pod.seccompProfile?.type]).toEqual([w.metadata.name, true, 1000, 'RuntimeDefault']);
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(podOf(w).automountServiceAccountToken).toBe(false);
      expect(c.resources.requests.memory).toMatch(/^\d+Mi$/);
      expect(c.resources.limits.memory).toMatch(/^\d+Mi$/);
      expect(parseInt(c.resources.limits.memory, 10)).toBeGreaterThanOrEqual(parseInt(c.resources.requests.memory, 10));
    }
  });

  it('runs commands the image holds: the Dockerfile copies the build to /app/dist, runs as node (uid 1000), and the build has each path', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('AS runtime'));
    expect(runtime).toMatch(/^WORKDIR \/app$/m);
    expect(runtime).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(runtime).toMatch(/^COPY prisma\/migrations \.\/prisma\/migrations$/m);
    expect(runtime).toMatch(/^COPY package\.json \.\/$/m); // the version (ADR 0065)
    expect(runtime).toMatch(/^USER node$/m); // uid 1000 in the node images
    // The build stage compiles with the same script as here; its output is what `npm run build` leaves in dist/.
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    const missing = containers
      .flatMap(({ c }) => [(c.command as string[])[1], ...((c.env ?? []) as any[]).filter((e) => e.name === 'ARVIS_TOOL_PACKAGES').flatMap((e) => e.value.split(','))])
      .filter((p) => !existsSync(join(ROOT, p)));
    expect(existsSync(join(ROOT, 'dist'))).toBe(true); // `npm run build` first
    expect(missing).toEqual([]);
    for (const { c } of containers) expect(c.command[0]).toBe('node');
    // What the image says it serves and runs: every container port exposed, every command in its usage line.
    const exposed = (/^EXPOSE (.+)$/m.exec(runtime)?.[1] ?? '').split(/\s+/).map(Number);
    const ports = containers.flatMap(({ c }) => (c.ports ?? []).map((p: any) => p.containerPort as number));
    expect(ports.filter((p) => !exposed.includes(p))).toEqual([]);
    const usage = /^CMD .*usage: (.*)$/m.exec(runtime)?.[1] ?? '';
    expect(containers.map(({ c }) => c.command.join(' ')).filter((cmd) => !usage.includes(cmd))).toEqual([]);
  });
});

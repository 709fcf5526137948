/**
 * The reference deployment (deploy/kubernetes/) against the code it runs: every fact the
 * manifests state about Peagen (commands and flags, environment variables, queue address,
 * stream names, image) is checked here against the CLI, the configuration loader and the
 * handler registry, so that a change on either side that breaks a deployed cluster fails here.
 * No kubectl or KEDA offline: the Kubernetes-side checks are structural (selectors, names,
 * references), done on the parsed YAML.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { loadConfig, type PeagenConfig } from '../../daemon/config';
import { detectedCapabilities } from '../../daemon/composition';
import { requirementSetKey } from '../../daemon/fabric/queue/TaskQueue';
import { createRegistry } from '../../daemon/handlers';
import { type Executor, executorCapabilities } from '../../daemon/sandbox/Executor';
import { queueKeyPrefix } from '../../shared/redisAddress';
import { CLI, REPO } from '../fixtures/paths';

const DEPLOY = path.join(REPO, 'deploy', 'kubernetes');
const CONSUMER_GROUP = 'peagen';

type Json = Record<string, unknown>;
interface Resource extends Json {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Json;
  file: string;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: { exec?: { command: string[] } };
  livenessProbe?: { exec?: { command: string[] } };
  startupProbe?: { exec?: { command: string[] } };
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Container[]; initContainers?: Container[]; automountServiceAccountToken?: boolean; securityContext?: Json };
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.yaml') && path.basename(name) !== 'kustomization.yaml')
    .map((name) => path.join(dir, name))
    .sort();
}

function loadResources(): Resource[] {
  return yamlFiles(DEPLOY).flatMap((file) =>
    parseAllDocuments(fs.readFileSync(file, 'utf8')).map((document) => {
      assert.deepEqual(document.errors, [], `${file}: YAML errors`);
      const resource = document.toJS() as Resource;
      assert.ok(resource?.kind && resource.apiVersion && resource.metadata?.name, `${file}: a document without kind, apiVersion or metadata.name`);
      return { ...resource, file: path.relative(REPO, file) };
    }),
  );
}

const resources = loadResources();
const kustomization = parseYaml(fs.readFileSync(path.join(DEPLOY, 'kustomization.yaml'), 'utf8')) as {
  namespace: string;
  resources: string[];
  secretGenerator: Array<{ name: string; envs: string[] }>;
  generatorOptions?: { disableNameSuffixHash?: boolean };
};
const recipe = JSON.parse(fs.readFileSync(path.join(REPO, 'deploy', 'image', 'worker-image.json'), 'utf8')) as {
  repository: string;
  cli: string;
  files: Array<{ from: string; to: string }>;
};
const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const WORKER_IMAGE = `${recipe.repository}:${version}`;

const ofKind = (kind: string): Resource[] => resources.filter((resource) => resource.kind === kind);
const workloads = resources.filter((resource) => resource.kind === 'Deployment' || resource.kind === 'StatefulSet');
const templateOf = (workload: Resource): PodTemplate => (workload.spec as { template: PodTemplate }).template;
const allContainers = (workload: Resource): Container[] => [...(templateOf(workload).spec.initContainers ?? []), ...templateOf(workload).spec.containers];
/** Containers that run Peagen's CLI (the daemon and the workers). */
const runsPeagen = (container: Container): boolean => container.command?.[0] === 'node' && container.command[1] === recipe.cli;
const workers = ofKind('Deployment').filter((deployment) => templateOf(deployment).spec.containers.some((container) => container.args?.slice(0, 2).join(' ') === 'worker start'));

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** The keys of each Secret the kustomization generates, from its committed `.env.example` files. */
function generatedSecrets(): Map<string, Set<string>> {
  const secrets = new Map<string, Set<string>>();
  for (const generator of kustomization.secretGenerator) {
    const keys = new Set<string>();
    for (const envFile of generator.envs) {
      const example = path.join(DEPLOY, `${envFile}.example`);
      assert.ok(fs.existsSync(example), `secret ${generator.name}: ${envFile}.example is missing (it documents the keys to fill in)`);
      for (const line of fs.readFileSync(example, 'utf8').split('\n')) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line);
        if (match?.[1]) keys.add(match[1]);
      }
    }
    secrets.set(generator.name, keys);
  }
  return secrets;
}

/**
 * Every environment variable the code reads, found in its sources: `env.NAME` and
 * `env['NAME']` accesses, and the variable names that modules reading the environment through
 * a table or constant spell out (`{ variable: 'QUEUE_URL' }`, `OPENAI_API_KEY`).
 */
function variablesReadByCode(): Set<string> {
  const names = new Set<string>();
  const sources = ['daemon', 'shared'].flatMap((dir) =>
    fs
      .readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => path.join(REPO, dir, name)),
  );
  for (const file of sources) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(match[1]!);
    for (const match of text.matchAll(/\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g)) names.add(match[1]!);
    if (/\benv\b/.test(text)) for (const match of text.matchAll(/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g)) names.add(match[1]!);
  }
  return names;
}

/** The container's environment as the process sees it (Secret values stand in as placeholders). */
function environmentOf(container: Container, where: string): NodeJS.ProcessEnv {
  const secrets = generatedSecrets();
  const env: NodeJS.ProcessEnv = {};
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) {
      assert.ok(secrets.get(ref.name)?.has(ref.key), `${where}: ${variable.name} comes from Secret ${ref.name} key ${ref.key}, which the kustomization does not generate`);
      env[variable.name] = `from-secret-${ref.name}-${ref.key}`;
    } else {
      assert.equal(typeof variable.value, 'string', `${where}: ${variable.name} has neither a value nor a secretKeyRef`);
      env[variable.name] = variable.value;
    }
  }
  return env;
}

/** A worker's capabilities and the streams it claims from, as the code computes them. */
function servedStreams(config: PeagenConfig, env: NodeJS.ProcessEnv, queueUrl: URL): { caps: string[]; streams: string[] } {
  // Only the executor's name matters for what the handlers offer (executorCapabilities).
  const executor = { name: config.sandbox.executor === 'docker' ? 'docker' : 'process' } as unknown as Executor;
  const registry = createRegistry(config.worker.plugins, executor, { llm: config.llm, env, log: () => {} });
  const caps = [...new Set([...config.worker.caps, ...executorCapabilities(executor), ...detectedCapabilities(registry)])];
  const prefix = queueKeyPrefix(queueUrl.searchParams.get('prefix') ?? 'peagen');
  const streams = new Set<string>();
  for (const acceptor of registry.acceptorsFor(caps)) {
    // A task may require any subset of what the handler provides (evolve's evaluate tasks require nothing).
    const provides = [...acceptor.provides];
    for (let mask = 0; mask < 1 << provides.length; mask++) {
      const requires = provides.filter((_, index) => mask & (1 << index));
      streams.add(`${prefix}:tasks:${requirementSetKey(acceptor.kind, requires)}`);
    }
  }
  return { caps, streams: [...streams].sort() };
}

interface CliOptions {
  usage: string;
  /** Flag → whether it takes a value. */
  flags: Map<string, boolean>;
}

const helpCache = new Map<string, CliOptions>();
/** `peagen <words> --help`, parsed: the Usage line and the options with their value placeholders. */
function cliHelp(words: string[]): CliOptions {
  const key = words.join(' ');
  const cached = helpCache.get(key);
  if (cached) return cached;
  const result = spawnSync(process.execPath, [CLI, ...words, '--help'], { encoding: 'utf8', env: { ...process.env, QUEUE_URL: '' } });
  assert.equal(result.status, 0, `peagen ${key} --help failed: ${result.stderr}`);
  const usage = /^Usage: (.*)$/m.exec(result.stdout)?.[1] ?? '';
  const flags = new Map<string, boolean>();
  for (const match of result.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)( <[^>]+>)?/gm)) flags.set(match[1]!, Boolean(match[2]));
  const parsed = { usage, flags };
  helpCache.set(key, parsed);
  return parsed;
}

/** Fails unless `argv` is a real `peagen` subcommand with only options it declares (and their values). */
function assertCliCommand(argv: readonly string[], where: string): string {
  const firstOption = argv.findIndex((token) => token.startsWith('-'));
  const words = firstOption === -1 ? [...argv] : argv.slice(0, firstOption);
  const help = cliHelp(words);
  assert.equal(help.usage.replace(/ \[options\].*$/, ''), `peagen ${words.join(' ')}`, `${where}: "peagen ${words.join(' ')}" is not a peagen command`);
  const global = cliHelp([]);
  for (let index = words.length; index < argv.length; index++) {
    const token = argv[index]!;
    const [flag, inline] = token.split(/=(.*)/s, 2) as [string, string | undefined];
    const takesValue = help.flags.get(flag) ?? global.flags.get(flag);
    assert.ok(takesValue !== undefined, `${where}: peagen ${words.join(' ')} has no option ${flag}`);
    if (takesValue && inline === undefined) {
      assert.ok(index + 1 < argv.length, `${where}: ${flag} needs a value`);
      index += 1;
    }
  }
  return words.join(' ');
}

describe('the reference deployment (deploy/kubernetes)', () => {
  it('lists every manifest in the kustomization, and only the optional ones outside it', () => {
    const top = yamlFiles(DEPLOY)
      .filter((file) => path.dirname(file) === DEPLOY)
      .map((file) => path.basename(file));
    assert.deepEqual([...kustomization.resources].sort(), top);
    assert.equal(kustomization.generatorOptions?.disableNameSuffixHash, true, "KEDA's TriggerAuthentication names the Secret: generated names must be stable");
    assert.ok(ofKind('Namespace').some((namespace) => namespace.metadata.name === kustomization.namespace));
  });

  it("selects each workload's pods by labels its template carries and no other workload's", () => {
    assert.ok(workloads.length >= 4, 'Redis, the daemon and at least two worker sets');
    for (const workload of workloads) {
      const selector = (workload.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      assert.ok(selector && Object.keys(selector).length > 0, `${workload.metadata.name}: no selector`);
      assert.ok(selects(selector, templateOf(workload).metadata.labels), `${workload.metadata.name}: its selector does not match its pod template's labels`);
      for (const other of workloads.filter((candidate) => candidate !== workload)) {
        assert.ok(!selects(selector, templateOf(other).metadata.labels), `${workload.metadata.name}'s selector also matches ${other.metadata.name}'s pods`);
      }
    }
  });

  it('has Services that reach a port of exactly one workload, and a queue URL naming one', () => {
    for (const service of ofKind('Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string | number }> };
      const targets = workloads.filter((workload) => selects(spec.selector, templateOf(workload).metadata.labels));
      assert.equal(targets.length, 1, `Service ${service.metadata.name} selects ${targets.length} workloads`);
      const ports = templateOf(targets[0]!).spec.containers.flatMap((container) => container.ports ?? []);
      for (const port of spec.ports) {
        assert.ok(ports.some((candidate) => candidate.name === port.targetPort || candidate.containerPort === port.targetPort), `Service ${service.metadata.name}: no container port ${port.targetPort}`);
      }
    }
    const redisStatefulSet = ofKind('StatefulSet').find((set) => templateOf(set).spec.containers.some((container) => container.image.startsWith('redis:')));
    assert.ok(redisStatefulSet, 'a Redis StatefulSet');
    const redis = templateOf(redisStatefulSet).spec.containers[0]!;
    assert.ok(/--appendonly\s+yes/.test((redis.args ?? []).join(' ')), 'Redis keeps an append-only file');
    assert.ok((redisStatefulSet.spec as { volumeClaimTemplates?: unknown[] }).volumeClaimTemplates?.length, 'Redis data on a persistent volume');
  });

  it('runs real peagen commands with real options, in containers and probes', () => {
    const commands = new Set<string>();
    for (const workload of workloads) {
      for (const container of allContainers(workload)) {
        const where = `${workload.metadata.name}/${container.name}`;
        if (runsPeagen(container)) commands.add(assertCliCommand(container.args ?? [], where));
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
          const argv = probe?.exec?.command;
          if (argv?.[0] === 'node' && argv[1] === recipe.cli) commands.add(assertCliCommand(argv.slice(2), `${where} probe`));
        }
      }
    }
    assert.deepEqual([...commands].sort(), ['daemon start', 'daemon status', 'worker start']);
    const daemon = ofKind('Deployment').find((deployment) => templateOf(deployment).spec.containers.some((container) => container.args?.slice(0, 2).join(' ') === 'daemon start'));
    assert.ok(daemon, 'a daemon Deployment');
    assert.equal((daemon.spec as { replicas?: number }).replicas, 1, 'one daemon');
    assert.ok(templateOf(daemon).spec.containers[0]!.readinessProbe, 'the daemon has a readiness probe');
  });

  it('sets only environment variables the code reads, with values the configuration accepts', () => {
    const read = variablesReadByCode();
    assert.ok(read.has('QUEUE_URL') && read.has('PEAGEN_HOME') && read.has('OPENAI_API_KEY'), `the scan of the sources found too little: ${[...read].join(', ')}`);
    for (const workload of workloads) {
      for (const container of allContainers(workload).filter(runsPeagen)) {
        const where = `${workload.metadata.name}/${container.name}`;
        const env = environmentOf(container, where);
        for (const name of Object.keys(env)) assert.ok(read.has(name), `${where} sets ${name}, which no code reads`);
        assert.doesNotThrow(() => loadConfig(undefined, env), `${where}: the configuration refuses its environment`);
      }
    }
  });

  it('takes every secret from a Secret the kustomization generates, with that key', () => {
    const secrets = generatedSecrets();
    assert.deepEqual([...secrets.keys()].sort(), ['peagen-llm', 'peagen-redis']);
    for (const workload of workloads) {
      for (const container of allContainers(workload)) {
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) assert.ok(secrets.get(ref.name)?.has(ref.key), `${workload.metadata.name}/${container.name}: ${variable.name} from Secret ${ref.name} key ${ref.key}, which is not generated`);
        }
        const inline = `${(container.args ?? []).join(' ')} ${(container.command ?? []).join(' ')}`;
        assert.ok(!/redis:\/\/[^\s/@]*:[^\s/@]*@/.test(inline) && !(container.env ?? []).some((variable) => /\/\/[^/@\s]*:[^/@\s]*@/.test(variable.value ?? '')), 'no password in a URL');
      }
    }
  });

  it('gives every peagen container the image the offline recipe builds, and pins third-party images', () => {
    for (const file of recipe.files) assert.ok(fs.existsSync(path.join(REPO, file.from)), `the recipe copies ${file.from}, which does not exist`);
    assert.ok(recipe.files.some((file) => file.to === recipe.cli), `the recipe does not put the CLI at ${recipe.cli}`);
    for (const workload of workloads) {
      for (const container of allContainers(workload)) {
        const where = `${workload.metadata.name}/${container.name}`;
        if (runsPeagen(container) || container.image.startsWith(`${recipe.repository}:`)) assert.equal(container.image, WORKER_IMAGE, where);
        else assert.match(container.image, /^[\w./-]+:(?!latest$)[\w.-]+$/, `${where}: pin ${container.image} to a version`);
      }
    }
  });

  it('isolates worker pods: non-root, no service-account token, no privilege, no idle exit', () => {
    for (const worker of workers) {
      const pod = templateOf(worker).spec;
      assert.equal(pod.automountServiceAccountToken, false, `${worker.metadata.name}: candidates must not get an API token`);
      assert.equal((worker.spec as { replicas?: number }).replicas, undefined, `${worker.metadata.name}: KEDA owns the replica count`);
      const container = pod.containers.find(runsPeagen)!;
      const security = (container as { securityContext?: Json }).securityContext ?? {};
      assert.equal(security.allowPrivilegeEscalation, false, worker.metadata.name);
      assert.equal(security.readOnlyRootFilesystem, true, worker.metadata.name);
      assert.ok(pod.securityContext?.runAsNonRoot ?? security.runAsNonRoot, `${worker.metadata.name}: not as root`);
      const env = environmentOf(container, worker.metadata.name);
      assert.ok(env.QUEUE_URL && env.WORKER_CAPS, `${worker.metadata.name}: QUEUE_URL and WORKER_CAPS`);
      // A Deployment restarts a container that exits; KEDA scales to zero instead.
      assert.equal(env.WORKER_IDLE_EXIT, undefined, `${worker.metadata.name}: WORKER_IDLE_EXIT in a Deployment means a restart loop`);
      assert.ok(!(container.args ?? []).includes('--exit-after-idle'), `${worker.metadata.name}: --exit-after-idle in a Deployment means a restart loop`);
    }
  });

  it('scales every worker Deployment from zero on exactly the streams it can serve', () => {
    const scaled = new Set<string>();
    const authentications = ofKind('TriggerAuthentication');
    const secrets = generatedSecrets();
    for (const scaledObject of ofKind('ScaledObject')) {
      const spec = scaledObject.spec as {
        scaleTargetRef: { name: string; kind?: string };
        minReplicaCount: number;
        maxReplicaCount: number;
        triggers: Array<{ type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }>;
      };
      const name = scaledObject.metadata.name;
      const target = workers.find((worker) => worker.metadata.name === spec.scaleTargetRef.name);
      assert.ok(target && (spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment', `ScaledObject ${name} targets no worker Deployment`);
      assert.ok(!scaled.has(target.metadata.name), `${target.metadata.name} has two ScaledObjects`);
      scaled.add(target.metadata.name);
      assert.equal(spec.minReplicaCount, 0, `${name}: scales to zero`);
      assert.ok(spec.maxReplicaCount >= 1, name);

      const container = templateOf(target).spec.containers.find(runsPeagen)!;
      const env = environmentOf(container, target.metadata.name);
      const config = loadConfig(undefined, env);
      const queueUrl = new URL(config.queue.url);
      assert.equal(queueUrl.protocol, 'redis:', `${target.metadata.name}: a shared Redis queue`);
      const service = ofKind('Service').find((candidate) => [candidate.metadata.name, `${candidate.metadata.name}.${kustomization.namespace}.svc.cluster.local`].includes(queueUrl.hostname));
      assert.ok(service, `${target.metadata.name}: QUEUE_URL host ${queueUrl.hostname} is no Service here`);
      const port = Number(queueUrl.port || 6379);
      assert.ok((service.spec as { ports: Array<{ port: number }> }).ports.some((candidate) => candidate.port === port), `${target.metadata.name}: Service ${service.metadata.name} has no port ${port}`);
      const database = queueUrl.pathname.replace(/^\/|\/$/g, '') || '0';

      const { caps, streams } = servedStreams(config, env, queueUrl);
      const watched = spec.triggers.map((trigger) => trigger.metadata.stream ?? '').sort();
      assert.deepEqual(watched, streams, `${name}: the streams a worker with caps [${caps.join(', ')}] claims from`);
      for (const trigger of spec.triggers) {
        const where = `${name} trigger ${trigger.metadata.stream}`;
        assert.equal(trigger.type, 'redis-streams', where);
        const meta = trigger.metadata;
        assert.ok([`${service.metadata.name}:${port}`, `${service.metadata.name}.${kustomization.namespace}.svc.cluster.local:${port}`].includes(meta.address ?? ''), `${where}: address ${meta.address}`);
        assert.equal(meta.databaseIndex ?? '0', database, `${where}: the queue's database`);
        if (meta.consumerGroup !== undefined) {
          // With a group KEDA counts pending (delivered) entries unless lagCount is given: a
          // Deployment at zero would never wake.
          assert.equal(meta.consumerGroup, CONSUMER_GROUP, where);
          assert.ok(meta.lagCount, `${where}: a consumerGroup without lagCount counts only delivered tasks`);
        } else {
          assert.equal(meta.streamLength, String(config.worker.concurrency), `${where}: one replica holds WORKER_CONCURRENCY tasks`);
        }
        const authentication = authentications.find((candidate) => candidate.metadata.name === trigger.authenticationRef?.name);
        assert.ok(authentication, `${where}: no TriggerAuthentication ${trigger.authenticationRef?.name}`);
        for (const ref of (authentication.spec as { secretTargetRef: Array<{ name: string; key: string }> }).secretTargetRef) {
          assert.ok(secrets.get(ref.name)?.has(ref.key), `${where}: Secret ${ref.name} key ${ref.key} is not generated`);
        }
      }
    }
    assert.deepEqual([...scaled].sort(), workers.map((worker) => worker.metadata.name).sort(), 'every worker Deployment is scaled');
  });
});

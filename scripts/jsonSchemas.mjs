// JSON schemas for VS Code's jsonValidation (package.json contributes.jsonValidation):
// dist/schemas/peagen.schema.json for peagen.json and dist/schemas/peagen.example.schema.json
// for peagen.example.json, generated from the zod schemas the daemon itself validates with, so
// the editor's completion and errors can never disagree with `peagen`.
//
// The zod schemas document their fields in comments; the hover texts live here, by key path
// (`a.b[].c`: `[]` steps into array items). test/unit/jsonSchemas.test.ts fails when a field has
// no description, and this script fails when a description names a field that no longer exists.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const CONFIG_DESCRIPTIONS = {
  '': 'Peagen project settings (peagen.json). Environment variables (QUEUE_URL, WORKER_CAPS, ...) override them; secrets never go here.',
  queue: 'The task queue the daemon and its workers share.',
  'queue.url':
    'memory:// (private to one daemon) or redis://host[:port][/db][?prefix=NAME] (rediss:// for TLS) for a shared cluster; on a Redis Cluster redis+cluster://host:port[,host:port...][?prefix=NAME] (rediss+cluster:// for TLS). Keep the password out of this file: set PEAGEN_REDIS_PASSWORD (in VS Code: "Peagen: Set Redis Password").',
  'queue.leaseMs': 'How long a claimed task is leased to its worker (ms); a worker that dies loses it and the task runs again.',
  'queue.maxAttempts': 'Deliveries of a task before it goes to the dead-letter list with its reason.',
  'queue.retryBaseMs': 'Back-off before the first retry of a retryable failure (ms); doubled on each further attempt.',
  worker: 'The worker slots that run tasks.',
  'worker.caps': 'Capabilities this worker offers (cpu, llm, docker, gpu, ...): it runs only tasks whose requirements they cover.',
  'worker.concurrency': 'Tasks run at the same time (1 to 256).',
  'worker.mode': 'in-process: tasks run inside the worker; one-shot: a fresh process per task.',
  'worker.plugins': 'Plugins allowed to load (package names or paths), as with "plugins"; also WORKER_PLUGINS.',
  plugins:
    'Plugin packages allowed to load (package names or paths): installed packages with a "peagen" field providing handlers, mutators, selectors, executors or LLM backends. `peagen plugins` lists them; see docs/plugins.md.',
  'worker.roots': 'On a shared (Redis) queue: the host directories a task may name (workspace, mounts, example, prompt directory); default: the directory the worker starts in and the bundled examples. Also PEAGEN_WORKER_ROOTS.',
  'worker.kinds': 'Serve only these task kinds (e.g. ["mutate"]: LLM calls only, so that no evaluation slot waits on a model); default: every kind this worker can serve. Also WORKER_KINDS, or worker start --kinds.',
  'worker.exitAfterIdleMs': 'A standalone worker exits after this long without work (ms): scale to zero.',
  sandbox: 'Where candidate programs run: a single-use sandbox destroyed afterwards.',
  'sandbox.executor':
    'auto: docker if an engine and the image are there, else bwrap, else process (no isolation; it warns). `peagen daemon status` says which and why. Also the name of an allowed plugin\'s executor (docs/plugins.md).',
  'sandbox.image': 'Docker image of the docker executor (`peagen sandbox image build` builds it offline).',
  'sandbox.dockerHost': 'Docker engine to use (e.g. unix:///var/run/docker.sock); default: DOCKER_HOST or the local engine.',
  'sandbox.allowUnisolated':
    'Run execute and evaluate tasks queued by other processes on an executor that does not isolate (process). Default false: such a worker refuses them (dead letter isolation_required), as anyone who can write to the queue could run code as its user. Also PEAGEN_ALLOW_UNISOLATED=1, or worker start --allow-unisolated.',
  'sandbox.maxLimits': "The most any task may ask of a sandbox on this worker: higher limits are lowered to these, and the result's limitsLowered says which.",
  'sandbox.maxLimits.timeoutMs': 'Longest wall time of one sandbox run, in milliseconds (default 3600000).',
  'sandbox.maxLimits.memoryMb': 'Most memory of one sandbox, in MiB (default 8192).',
  'sandbox.maxLimits.pids': 'Most processes and threads in one sandbox (default 1024).',
  'sandbox.maxLimits.outputBytes': 'Most bytes kept per output stream of one run (default 67108864).',
  'sandbox.maxLimits.network': "Whether a task may have the network (default false: a task's limits.network is lowered to false, and the sandbox cannot reach this host's loopback).",
  daemon: 'The Peagen daemon.',
  'daemon.listen': 'Where other clients connect: unix:/path or tcp:127.0.0.1:PORT. Default: a socket in the state directory (~/.peagen).',
  'daemon.workers': 'Run worker slots inside the daemon (default). false on a coordinator whose tasks run on `peagen worker start` elsewhere.',
  'daemon.unservedWaitMs': 'Without worker slots (workers: false): how long a run waits, in milliseconds, while no worker on the queue serves a kind of its tasks, before it stops with a checkpoint (continue it with `peagen evolve run --resume`). It says why it waits at once. Default 600000 (10 minutes).',
  llm: 'Which models write patches. Without backends, the environment decides (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY); with none, an offline mutator works. Keys never go here.',
  'llm.backends': 'The models of the ensemble.',
  'llm.backends[]': 'One model.',
  'llm.backends[].name': 'Name of this backend in reports (letters, digits, ".", "_", "-").',
  'llm.backends[].provider': 'openai (also any OpenAI-compatible server: Ollama, vLLM, LM Studio, OpenRouter) or anthropic.',
  'llm.backends[].model': 'Model name, e.g. gpt-4o-mini.',
  'llm.backends[].baseUrl': 'Endpoint of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 for Ollama.',
  'llm.backends[].apiKeyEnv': 'The environment variable that holds the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY). The key itself never goes here.',
  'llm.backends[].weight': 'Share of calls under weighted routing.',
  'llm.backends[].temperature': 'Sampling temperature for this model (0 to 2); default: llm.temperature.',
  'llm.backends[].maxTokens': 'Largest answer asked for; budgets reserve this much per call.',
  'llm.backends[].timeoutMs': 'Time allowed for one call (ms).',
  'llm.backends[].maxRetries': 'Retries of a failed call (0 to 10).',
  'llm.backends[].pricing': 'Prices for the spend estimate and --budget-usd.',
  'llm.backends[].pricing.inputPerMTok': 'USD per million input tokens.',
  'llm.backends[].pricing.outputPerMTok': 'USD per million output tokens.',
  'llm.backends[].choices': 'Most answers per call for this model (1 to 8; 1 for a model that refuses several); default: no cap below llm.choices.',
  'llm.routing': 'weighted: by each backend\'s weight; bandit: learns which model improves most per dollar.',
  'llm.temperature': 'Sampling temperature (0 to 2).',
  'llm.repairAttempts': 'An answer that does not apply goes back to the model with the reason, up to this many times (0 to 5).',
  'llm.allowRewrite': 'Also accept an answer that rewrites a whole EVOLVE-BLOCK in one fenced block.',
  'llm.choices':
    'Answers drawn per call (1 to 8; OpenAI\'s n, one from Anthropic): every new child among them is evaluated, the others with no call of their own. The prompt is paid once, each answer\'s output tokens are paid.',
  observability: 'Metrics, health and traces (docs/metrics.md).',
  'observability.metricsListen':
    'host:port where the daemon serves /metrics (Prometheus), /healthz and /readyz, or "off". Default 127.0.0.1:9464 (loopback only). PEAGEN_METRICS_LISTEN overrides it.',
  'observability.workerMetricsListen':
    'host:port where each `peagen worker start` pool serves /metrics, /healthz and /readyz, or "off". Default 127.0.0.1:9465; a second pool on the host takes the next free port.',
  'observability.otlpEndpoint':
    'OpenTelemetry OTLP/HTTP endpoint for traces (e.g. http://127.0.0.1:4318): one trace per evolve run. Off when unset. OTEL_EXPORTER_OTLP_ENDPOINT sets it too.',
};

const EXAMPLE_DESCRIPTIONS = {
  '': 'A Peagen example (peagen.example.json): the program to evolve and the trusted evaluator that scores it.',
  name: 'Name of the example.',
  description: 'What the example is about.',
  language: 'Language of the program (python, javascript, ...).',
  program: 'The file the mutator edits, relative to this directory; its EVOLVE-BLOCK-START/END regions are what changes.',
  entry: 'The function the evaluator calls.',
  evaluator: 'The evaluator command (argv), run with this directory as cwd; {program} is the candidate\'s path. It prints one JSON line: {"correct", "objective", "direction", "metrics", "error"}.',
  objective: 'What the evaluator optimises.',
  'objective.name': 'Name of the objective (e.g. speedup).',
  'objective.direction': 'maximize or minimize; the evaluator must print the same.',
  'objective.unit': 'What the objective is counted in, e.g. x for a speedup or ms for a time: the Evolution view and `peagen evolve show` label niches in it (speedup 4–8x).',
  limits: 'Hard limits of one evaluation run.',
  'limits.timeoutMs': 'Wall time (ms); everything the run started is killed after it.',
  'limits.memoryMb': 'Memory (MiB).',
  'limits.pids': 'Processes and threads.',
  features: 'The MAP-Elites feature axes. Default for a Python or JavaScript program: the objective (log-spaced bins), loop nesting, native built-ins called and recursion; for another language the objective and the code length.',
  'features[]': 'One axis of the MAP-Elites grid.',
  'features[].name': 'Name of the axis.',
  'features[].from': 'objective, metric:NAME (a metric the evaluator prints), codeLength (characters), lines, or the program\'s structure: structure:loops (deepest loop nesting), structure:builtins (distinct native built-ins called), structure:recursion (1 when a function calls itself).',
  'features[].language': 'What a structure axis reads the program as (python or javascript); default: the example\'s language or its program file\'s extension.',
  'features[].bins': 'Ascending bin edges; a value\'s bin is the number of edges at or below it.',
  project: 'What the project\'s tests need from this machine (written by peagen init --tests): the sandbox sees it read-only, and the project\'s copy links to it.',
  'project.root': 'The project\'s root, relative to this directory: ../.. and so on (an ancestor).',
  'project.dependencies': 'Dependency folders in the project\'s root the tests import from: node_modules, .venv or venv.',
  'project.dependencies[]': 'One dependency folder.',
  'project.toolchains': 'Interpreter installations outside the system directories (a pyenv Python\'s prefix) the tests run with: first on their PATH.',
  'project.toolchains[]': 'One installation\'s prefix (it holds bin/python3 or bin/node).',
};

/** The sub-schema at `keyPath` (`a.b[].c`), or undefined. */
function at(schema, keyPath) {
  let node = schema;
  if (keyPath === '') return node;
  for (const step of keyPath.split('.')) {
    const items = step.endsWith('[]');
    const key = items ? step.slice(0, -2) : step;
    node = node?.properties?.[key];
    if (items) node = node?.items;
    if (!node) return undefined;
  }
  return node;
}

function describe(schema, descriptions, file) {
  for (const [keyPath, description] of Object.entries(descriptions)) {
    const node = at(schema, keyPath);
    if (!node) throw new Error(`scripts/jsonSchemas.mjs: ${file} has no field "${keyPath}" any more; update its description`);
    node.description = description;
  }
  return schema;
}

/** Writes both schemas into `dir`, from the transpiled sources in `outDir` (see build.mjs). */
export function writeJsonSchemas(outDir, dir) {
  const require = createRequire(join(outDir, 'index.js'));
  const { z } = require('zod');
  const { ConfigSchema } = require(join(outDir, 'daemon', 'config.js'));
  const { ExampleConfigSchema } = require(join(outDir, 'shared', 'evaluation.js'));
  // draft-7: the draft VS Code's JSON language service supports best. io 'input': what a
  // person writes (defaults make fields optional), not what the daemon holds after parsing.
  const generate = (schema) => z.toJSONSchema(schema, { io: 'input', target: 'draft-7' });
  mkdirSync(dir, { recursive: true });
  const write = (name, schema, descriptions) =>
    writeFileSync(join(dir, name), `${JSON.stringify(describe(generate(schema), descriptions, name), null, 2)}\n`);
  write('peagen.schema.json', ConfigSchema, CONFIG_DESCRIPTIONS);
  write('peagen.example.schema.json', ExampleConfigSchema, EXAMPLE_DESCRIPTIONS);
}

/**
 * The JSON schemas VS Code validates peagen.json and peagen.example.json with (jsonValidation
 * in package.json), as the build writes them into dist/schemas: they accept what Peagen
 * accepts, reject the usual mistakes, and describe every field (hover and completion texts).
 *
 * The check is a small draft-07 validator for exactly the keywords the generated schemas use;
 * it throws on any other keyword, so a schema can never hold a constraint this test ignores.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { ExampleConfigSchema } from '../../shared/evaluation';
import { REPO } from '../fixtures/paths';

type Schema = Record<string, unknown>;

const SCHEMAS = path.join(REPO, 'dist', 'schemas');
const ANNOTATIONS = new Set(['$schema', 'description', 'default', 'title']);
const CHECKED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'format',
  'anyOf',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Every violation of `schema` by `value`, as `path: what`; empty when it is valid. */
function validate(schema: Schema, value: unknown, at = '$'): string[] {
  const errors: string[] = [];
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !CHECKED.has(keyword)) throw new Error(`${at}: the test's validator does not know the keyword "${keyword}"`);
  }
  if (schema.anyOf !== undefined) {
    const options = (schema.anyOf as Schema[]).map((option) => validate(option, value, at));
    if (options.every((option) => option.length > 0)) errors.push(`${at}: matches none of its ${options.length} forms (${options.map((option) => option[0]).join('; ')})`);
  }
  const type = typeOf(value);
  if (schema.type !== undefined) {
    const allowed = ([] as unknown[]).concat(schema.type);
    if (!allowed.some((t) => t === type || (t === 'number' && type === 'integer'))) return [`${at}: expected ${allowed.join('|')}, got ${type}`];
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).some((option) => option === value)) errors.push(`${at}: not one of ${JSON.stringify(schema.enum)}`);
  if (schema.const !== undefined && schema.const !== value) errors.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') {
    if (schema.pattern !== undefined && !new RegExp(schema.pattern as string, 'u').test(value)) errors.push(`${at}: does not match ${String(schema.pattern)}`);
    if (schema.minLength !== undefined && [...value].length < (schema.minLength as number)) errors.push(`${at}: shorter than ${String(schema.minLength)}`);
    if (schema.maxLength !== undefined && [...value].length > (schema.maxLength as number)) errors.push(`${at}: longer than ${String(schema.maxLength)}`);
    if (schema.format === 'uri' && !URL.canParse(value)) errors.push(`${at}: not a URI`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < (schema.minimum as number)) errors.push(`${at}: below ${String(schema.minimum)}`);
    if (schema.maximum !== undefined && value > (schema.maximum as number)) errors.push(`${at}: above ${String(schema.maximum)}`);
    if (schema.exclusiveMinimum !== undefined && value <= (schema.exclusiveMinimum as number)) errors.push(`${at}: not above ${String(schema.exclusiveMinimum)}`);
    if (schema.exclusiveMaximum !== undefined && value >= (schema.exclusiveMaximum as number)) errors.push(`${at}: not below ${String(schema.exclusiveMaximum)}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < (schema.minItems as number)) errors.push(`${at}: fewer than ${String(schema.minItems)} items`);
    if (schema.maxItems !== undefined && value.length > (schema.maxItems as number)) errors.push(`${at}: more than ${String(schema.maxItems)} items`);
    if (schema.items !== undefined) value.forEach((item, index) => errors.push(...validate(schema.items as Schema, item, `${at}[${index}]`)));
  }
  if (type === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) errors.push(`${at}: missing "${key}"`);
    for (const [key, item] of Object.entries(object)) {
      if (properties[key]) errors.push(...validate(properties[key], item, `${at}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unknown key "${key}"`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties as Schema, item, `${at}.${key}`));
    }
  }
  return errors;
}

/** Paths of the object fields (and array items of objects) that have no description. */
function undescribed(schema: Schema, at = '$'): string[] {
  const missing = typeof schema.description === 'string' && schema.description.length > 0 ? [] : [at];
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) missing.push(...undescribed(child, `${at}.${key}`));
  const items = schema.items as Schema | undefined;
  if (items?.type === 'object') missing.push(...undescribed(items, `${at}[]`));
  return missing;
}

function load(name: string): Schema {
  const file = path.join(SCHEMAS, name);
  assert.ok(fs.existsSync(file), `${file} is missing: node scripts/build.mjs generates it`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Schema;
}

const FULL_CONFIG = {
  queue: { url: 'redis://10.0.0.5:6379/2?prefix=team', leaseMs: 30_000, maxAttempts: 5, retryBaseMs: 0 },
  worker: { caps: ['cpu', 'llm'], concurrency: 4, mode: 'one-shot', plugins: ['./plugin.js'], exitAfterIdleMs: 60_000 },
  sandbox: { executor: 'bwrap', image: 'peagen-sandbox:latest', dockerHost: 'unix:///var/run/docker.sock' },
  daemon: { listen: 'tcp:127.0.0.1:7781', workers: false },
  llm: {
    backends: [
      { name: 'local', provider: 'openai', model: 'qwen2.5-coder', baseUrl: 'http://127.0.0.1:11434/v1', weight: 2, maxTokens: 2048 },
      { name: 'claude', provider: 'anthropic', model: 'claude-sonnet-4', apiKeyEnv: 'MY_KEY', pricing: { inputPerMTok: 3, outputPerMTok: 15 } },
    ],
    routing: 'bandit',
    temperature: 0.5,
    repairAttempts: 1,
    allowRewrite: true,
  },
};

describe('JSON schemas for peagen.json and peagen.example.json (VS Code jsonValidation)', () => {
  const config = load('peagen.schema.json');
  const example = load('peagen.example.schema.json');

  it('accepts an empty peagen.json and one that sets every field, as the daemon does', () => {
    assert.deepEqual(validate(config, {}), []);
    assert.deepEqual(validate(config, FULL_CONFIG), []);
    assert.ok(ConfigSchema.safeParse(FULL_CONFIG).success, 'the sample config is not valid for the daemon itself');
  });

  const configMistakes: [string, unknown, RegExp][] = [
    ['an executor that cannot be a name', { sandbox: { executor: 'fire cracker' } }, /\$\.sandbox\.executor: does not match/],
    ['a misspelt key', { worker: { concurency: 4 } }, /unknown key "concurency"/],
    ['an unknown section', { queues: {} }, /unknown key "queues"/],
    ['a number as a string', { worker: { concurrency: '4' } }, /concurrency: expected integer/],
    ['a fraction where a whole number belongs', { queue: { leaseMs: 1.5 } }, /leaseMs: expected integer/],
    ['too many worker slots', { worker: { concurrency: 1000 } }, /concurrency: above 256/],
    ['a queue URL that is neither memory:// nor redis://', { queue: { url: 'http://localhost:6379' } }, /queue\.url: does not match/],
    ['caps as one string', { worker: { caps: 'cpu,llm' } }, /caps: expected array/],
    ['an unknown LLM provider', { llm: { backends: [{ name: 'x', provider: 'mistral', model: 'm' }] } }, /provider: not one of/],
    ['a backend without a model', { llm: { backends: [{ name: 'x', provider: 'openai' }] } }, /missing "model"/],
    ['an API key in the file', { llm: { backends: [{ name: 'x', provider: 'openai', model: 'm', apiKey: 'sk-1' }] } }, /unknown key "apiKey"/],
  ];
  for (const [mistake, value, expected] of configMistakes) {
    it(`rejects ${mistake} in peagen.json, as the daemon does`, () => {
      const errors = validate(config, value);
      assert.ok(errors.some((error) => expected.test(error)), `errors: ${JSON.stringify(errors)}`);
      assert.equal(ConfigSchema.safeParse(value).success, false, 'the daemon accepts it: the test case is wrong');
    });
  }

  const examples = fs
    .readdirSync(path.join(REPO, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(REPO, 'examples', entry.name, 'peagen.example.json')))
    .map((entry) => entry.name);

  it('finds the bundled examples', () => assert.ok(examples.includes('bad_sort'), `examples: ${examples.join(', ')}`));

  for (const name of examples) {
    it(`accepts examples/${name}/peagen.example.json`, () => {
      const value: unknown = JSON.parse(fs.readFileSync(path.join(REPO, 'examples', name, 'peagen.example.json'), 'utf8'));
      assert.deepEqual(validate(example, value), []);
    });
  }

  const badSort = JSON.parse(fs.readFileSync(path.join(REPO, 'examples', 'bad_sort', 'peagen.example.json'), 'utf8')) as Record<string, unknown>;
  it('accepts feature descriptors', () => {
    const value = { ...badSort, features: [{ name: 'speed', from: 'metric:ops', bins: [1, 10, 100] }, { name: 'size', from: 'lines', bins: [20] }] };
    assert.deepEqual(validate(example, value), []);
    assert.ok(ExampleConfigSchema.safeParse(value).success);
  });

  const exampleMistakes: [string, unknown, RegExp][] = [
    ['the evaluator as one string', { ...badSort, evaluator: 'python3 evaluate.py {program}' }, /evaluator: expected array/],
    ['an empty evaluator', { ...badSort, evaluator: [] }, /evaluator: fewer than 1 items/],
    ['a misspelt direction', { ...badSort, objective: { name: 'speedup', direction: 'maximise' } }, /direction: not one of/],
    ['a missing program', { ...badSort, program: undefined }, /missing "program"/],
    ['a negative time limit', { ...badSort, limits: { timeoutMs: -1 } }, /timeoutMs: not above 0/],
    ['a time limit in seconds as text', { ...badSort, limits: { timeoutMs: '120s' } }, /timeoutMs: expected integer/],
    ['an unknown feature source', { ...badSort, features: [{ name: 'x', from: 'runtime', bins: [1] }] }, /from: does not match/],
  ];
  for (const [mistake, value, expected] of exampleMistakes) {
    it(`rejects ${mistake} in peagen.example.json, as Peagen does`, () => {
      const plain: unknown = JSON.parse(JSON.stringify(value));
      const errors = validate(example, plain);
      assert.ok(errors.some((error) => expected.test(error)), `errors: ${JSON.stringify(errors)}`);
      assert.equal(ExampleConfigSchema.safeParse(plain).success, false, 'Peagen accepts it: the test case is wrong');
    });
  }

  it('describes every field, for hover and completion', () => {
    assert.deepEqual(undescribed(config), []);
    assert.deepEqual(undescribed(example), []);
  });

  it('is the file package.json points VS Code at', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { contributes: { jsonValidation: { fileMatch: string; url: string }[] } };
    const byFile = Object.fromEntries(manifest.contributes.jsonValidation.map((entry) => [entry.fileMatch, path.join(REPO, entry.url)]));
    assert.equal(byFile['peagen.json'], path.join(SCHEMAS, 'peagen.schema.json'));
    assert.equal(byFile['peagen.example.json'], path.join(SCHEMAS, 'peagen.example.schema.json'));
  });
});

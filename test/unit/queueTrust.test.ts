/**
 * The parts of the queue's trust boundary on their own: task signatures (what they cover, what
 * a forger or a queue writer cannot get past), the admission gate (who may run task code on an
 * unisolated executor), the limit ceilings, and the settings that configure them. The same
 * against a real Redis and real sandboxes: test/integration/queueTrust.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { taskSecretOf } from '../../daemon/composition';
import { ConfigError, ConfigSchema, loadConfig } from '../../daemon/config';
import { Engine } from '../../daemon/engine/Engine';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { canonicalTaskContent, SIGNATURE_MAX_AGE_MS, signatureProblem, signTask, taskSecretFrom } from '../../daemon/fabric/queue/taskSignature';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import { type AdmissionPolicy, TaskAdmission } from '../../daemon/fabric/worker/taskAdmission';
import type { TaskHandler } from '../../daemon/fabric/worker/TaskHandler';
import type { ExecutionRequest, Executor } from '../../daemon/sandbox/Executor';
import { ceilingExecutor, DEFAULT_MAX_LIMITS, lowerToCeilings, withoutCeilings } from '../../daemon/sandbox/limitCeilings';
import { newTask, parseTask, type Task } from '../../shared/task';
import { tempDir } from '../fixtures/paths';

const SECRET = 'a-cluster-secret-of-32-characters';

describe('the queue trusts its writers no more than it must', () => {
  describe('task signatures', () => {
    const task = (): Task => newTask({ kind: 'execute', requires: ['cpu'], runId: 'r-1', deadline: Date.now() + 60_000, payload: { command: ['true'], workspace: '/srv', limits: { timeoutMs: 10 } } });

    it('a signed task passes, as it comes back from the queue (parsed again, keys in another order, attempts counted up)', () => {
      const signed = signTask(task(), SECRET);
      assert.match(signed.signature!, /^v1:[0-9a-f]{64}$/);
      const reordered = JSON.parse(JSON.stringify({ ...signed, payload: { limits: { timeoutMs: 10 }, workspace: '/srv', command: ['true'] } })) as unknown;
      const parsed = parseTask({ ...(reordered as object), attempts: 2 });
      assert.ok(parsed.ok);
      assert.equal(signatureProblem(parsed.task, SECRET), undefined);
    });

    it('any change to what the task does is a bad signature: id, kind, payload, requirements, times, run', () => {
      const signed = signTask(task(), SECRET);
      const changes: Partial<Task>[] = [
        { id: 't-other' },
        { kind: 'evaluate' },
        { payload: { command: ['cat', '/etc/shadow'], workspace: '/srv', limits: { timeoutMs: 10 } } },
        { payload: { command: ['true'], workspace: '/srv', limits: { timeoutMs: 10, network: true } } },
        { requires: ['cpu', 'gpu'] },
        { createdAt: new Date().toISOString().replace(/^\d{4}/, '2099') },
        { deadline: Date.now() + 86_400_000 },
        { runId: 'r-2' },
        { parentId: 'p-1' },
      ];
      for (const change of changes) assert.equal(signatureProblem({ ...signed, ...change }, SECRET)?.code, 'bad_signature', JSON.stringify(change));
    });

    it('unsigned, another secret, another version, malformed or truncated signatures are refused, never thrown', () => {
      const plain = task();
      assert.equal(signatureProblem(plain, SECRET)?.code, 'unsigned_task');
      const good = signTask(plain, SECRET).signature!;
      for (const signature of [signTask(plain, `${SECRET}x`).signature!, good.replace('v1:', 'v2:'), good.slice(0, 40), 'v1:', 'v1:zz', ':', good.toUpperCase(), `${good}00`]) {
        assert.equal(signatureProblem({ ...plain, signature }, SECRET)?.code, 'bad_signature', signature);
      }
    });

    it('an old signature expires; the content a signature covers leaves out only attempts and the signature', () => {
      const old = signTask({ ...task(), createdAt: new Date(Date.now() - SIGNATURE_MAX_AGE_MS - 60_000).toISOString() }, SECRET);
      assert.equal(signatureProblem(old, SECRET)?.code, 'signature_expired');
      const signed = signTask(task(), SECRET);
      assert.equal(canonicalTaskContent({ ...signed, attempts: 7, signature: 'v1:00' }), canonicalTaskContent(signed));
      assert.doesNotMatch(canonicalTaskContent(signed), /attempts|signature/);
    });

    it(`the secret comes from PEAGEN_TASK_SECRET; one too short to be safe is refused, saying how to make one`, () => {
      assert.equal(taskSecretFrom({}), undefined);
      assert.equal(taskSecretFrom({ PEAGEN_TASK_SECRET: '' }), undefined);
      assert.equal(taskSecretFrom({ PEAGEN_TASK_SECRET: SECRET }), SECRET);
      assert.throws(() => taskSecretFrom({ PEAGEN_TASK_SECRET: 'hunter2' }), /PEAGEN_TASK_SECRET is 7 characters long; use at least 16 random characters \(e\.g\. `openssl rand -hex 32`\)/);
      assert.throws(() => taskSecretOf({ PEAGEN_TASK_SECRET: 'short' }), (error: unknown) => error instanceof ConfigError, 'exit code 2, before anything is opened');
    });
  });

  describe('admission: task code from others runs only in an isolating sandbox, unless the worker opts in', () => {
    const runsCode: TaskHandler = { kind: 'execute', provides: ['cpu'], runsTaskCode: true, payloadSchema: z.unknown(), handle: async () => ({ status: 'ok' }) };
    const harmless: TaskHandler = { kind: 'echo', provides: ['cpu'], payloadSchema: z.unknown(), handle: async () => ({ status: 'ok' }) };
    const registry = new HandlerRegistry().register(runsCode).register(harmless);
    const unisolated: AdmissionPolicy = { isolates: false, executorName: 'process', allowUnisolated: false, privateQueue: false };
    const execute = (): Task => newTask({ kind: 'execute', requires: ['cpu'], payload: {} });

    it('refuses foreign task code on an unisolated executor, and nothing else', () => {
      const admission = new TaskAdmission(registry, unisolated);
      assert.deepEqual(admission.refusedForeignKinds, ['execute']);
      const refusal = admission.gate(execute());
      assert.equal(refusal?.code, 'isolation_required');
      assert.equal(refusal?.retryable, false, 'no other worker may take it either');
      assert.ok(refusal.message.length <= 280, 'what to do survives the 300-character cut of a dead letter');
      assert.equal(admission.gate(newTask({ kind: 'echo', payload: {} })), undefined);
    });

    it('admits it on an isolating executor, with the opt-in, on a private queue, and for tasks this process submitted until they end', () => {
      for (const policy of [{ isolates: true }, { allowUnisolated: true }, { privateQueue: true }]) {
        const admission = new TaskAdmission(registry, { ...unisolated, ...policy });
        assert.equal(admission.gate(execute()), undefined, JSON.stringify(policy));
        assert.deepEqual(admission.refusedForeignKinds, []);
      }
      const admission = new TaskAdmission(registry, unisolated);
      const own = execute();
      admission.submittedHere(own);
      assert.equal(admission.gate({ ...own, attempts: 2 }), undefined, 'a redelivery of its own task');
      admission.forget(own.id);
      assert.equal(admission.gate(own)?.code, 'isolation_required');
    });

    it('a task this process submitted that comes back changed is refused whatever the executor', () => {
      const admission = new TaskAdmission(registry, { ...unisolated, isolates: true });
      const own = newTask({ kind: 'echo', payload: { n: 1 } });
      admission.submittedHere(own);
      assert.equal(admission.gate({ ...own, payload: { n: 2 } })?.code, 'task_tampered');
      assert.equal(admission.gate({ ...own, signature: 'v1:00' })?.code, 'task_tampered');
    });

    it('with a secret, signatures are checked before anything runs (own tasks are signed when submitted)', async () => {
      const admission = new TaskAdmission(registry, { ...unisolated, isolates: true, secret: SECRET });
      assert.equal(admission.gate(newTask({ kind: 'echo', payload: {} }))?.code, 'unsigned_task');
      assert.equal(admission.gate(signTask(newTask({ kind: 'echo', payload: {} }), SECRET)), undefined);
      const queue = new MemoryQueue();
      const engine = new Engine(ConfigSchema.parse({ worker: { concurrency: 1 } }), { queue, registry, admission });
      try {
        const task = await engine.submit({ kind: 'echo', requires: ['cpu'], payload: {} });
        assert.equal(signatureProblem(task, SECRET), undefined, 'the engine signs what it submits');
        assert.equal((await engine.result(task.id, 10_000))?.status, 'ok');
      } finally {
        await engine.stop({ drain: false });
      }
    });
  });

  describe('limit ceilings', () => {
    it('lowers what a task asks above the ceilings, says which, and leaves the rest', () => {
      const asked = { timeoutMs: 24 * 3_600_000, memoryMb: 100, pids: 100_000, outputBytes: 1 << 30, network: true };
      const { limits, lowered } = lowerToCeilings(asked, DEFAULT_MAX_LIMITS);
      assert.deepEqual(limits, { timeoutMs: DEFAULT_MAX_LIMITS.timeoutMs, memoryMb: 100, pids: DEFAULT_MAX_LIMITS.pids, outputBytes: DEFAULT_MAX_LIMITS.outputBytes, network: false });
      assert.deepEqual(lowered.map((line) => line.split(' ')[0]), ['timeoutMs', 'pids', 'outputBytes', 'network']);
      assert.deepEqual(lowerToCeilings(undefined, DEFAULT_MAX_LIMITS), { limits: {}, lowered: [] }, 'the defaults are below the default ceilings');
      const tight = { ...DEFAULT_MAX_LIMITS, memoryMb: 128 };
      assert.deepEqual(lowerToCeilings({}, tight), { limits: { memoryMb: 128 }, lowered: [] }, 'a default above a ceiling the worker set is lowered without a word');
    });

    it('the bounded executor runs and prepares sandboxes within the ceilings, and its results list what was lowered', async () => {
      const seen: ExecutionRequest['limits'][] = [];
      const inner = processExecutor({
        async run(request) {
          seen.push(request.limits);
          return { executor: 'process', exitCode: 0, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, wallMs: 1 };
        },
        async prepare(options) {
          seen.push(options?.limits);
          return { executor: 'process', run: async () => ({ executor: 'process', exitCode: 0, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, wallMs: 1, warm: true }), discard: async () => {} };
        },
      });
      const bounded = ceilingExecutor(inner, DEFAULT_MAX_LIMITS);
      const result = await bounded.run({ command: ['true'], limits: { network: true } });
      assert.deepEqual(result.limitsLowered, ["network true lowered to false (this worker's sandbox.maxLimits.network)"]);
      assert.equal((await bounded.run({ command: ['true'] })).limitsLowered, undefined);
      const prepared = await bounded.prepare({ limits: { network: true } });
      assert.deepEqual((await prepared.run({ command: ['true'], limits: { network: true } })).limitsLowered, ["network true lowered to false (this worker's sandbox.maxLimits.network)"]);
      assert.deepEqual(seen, [{ network: false }, {}, { network: false }]);
      // Peagen's own install (no task code) reaches the registry: the executor under the ceilings.
      assert.equal(withoutCeilings(bounded), inner);
      assert.equal(withoutCeilings(ceilingExecutor(bounded, DEFAULT_MAX_LIMITS)), inner);
      assert.equal(withoutCeilings(inner), inner);
    });
  });

  describe('settings', () => {
    it('sandbox.allowUnisolated and sandbox.maxLimits in peagen.json, PEAGEN_ALLOW_UNISOLATED in the environment', () => {
      const defaults = ConfigSchema.parse({}).sandbox;
      assert.equal(defaults.allowUnisolated, false);
      assert.deepEqual(defaults.maxLimits, DEFAULT_MAX_LIMITS);
      assert.equal(loadConfig(undefined, { PEAGEN_ALLOW_UNISOLATED: '1' }).sandbox.allowUnisolated, true);
      assert.equal(loadConfig(undefined, { PEAGEN_ALLOW_UNISOLATED: 'false' }).sandbox.allowUnisolated, false);
      assert.throws(() => loadConfig(undefined, { PEAGEN_ALLOW_UNISOLATED: 'maybe' }), /PEAGEN_ALLOW_UNISOLATED="maybe": expected 1 or 0 \(true or false\)/);
      const dir = tempDir('trust-config');
      const file = path.join(dir, 'peagen.json');
      fs.writeFileSync(file, JSON.stringify({ sandbox: { maxLimits: { network: true, memoryMb: 256 } } }));
      assert.deepEqual(loadConfig(file, {}).sandbox.maxLimits, { ...DEFAULT_MAX_LIMITS, network: true, memoryMb: 256 });
      fs.writeFileSync(file, JSON.stringify({ sandbox: { maxLimits: { netwrk: true } } }));
      assert.throws(() => loadConfig(file, {}), /unknown key "sandbox\.maxLimits\.netwrk" \(did you mean "network"\?\)/);
    });
  });
});

/** An executor that runs nothing (the sandbox itself is not what these tests are about). */
function processExecutor(overrides: Partial<Executor> = {}): Executor {
  return {
    name: 'process',
    isolates: false,
    available: async () => ({ ok: true, detail: 'stub' }),
    run: async () => {
      throw new Error('not used');
    },
    prepare: async () => {
      throw new Error('not used');
    },
    reclaim: async () => {},
    close: async () => {},
    ...overrides,
  };
}

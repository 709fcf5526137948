/**
 * One-shot children leave nothing behind, however they end: many real `execute` and
 * `evaluate` tasks, each in a fresh child process with a real sandbox, some SIGKILLed at
 * their deadline and some cancelled mid-run. The parent reclaims each child's sandboxes by
 * the owner tag it gave the child (runOneShot's childScope, as the engine passes it).
 * Afterwards: no `peagen-*` entry in the (private) temp directory, no cgroup and no container
 * of ours, no process of any task.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigSchema } from '../../daemon/config';
import { type ExitReason, runOneShot } from '../../daemon/fabric/worker/oneShot';
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { DockerExecutor, LATE_RECLAIM_MS } from '../../daemon/sandbox/docker/DockerExecutor';
import { CONTAINER_LABEL } from '../../daemon/sandbox/docker/orphanSweep';
import type { Executor } from '../../daemon/sandbox/Executor';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../daemon/sandbox/owner';
import { newTask, type Task } from '../../shared/task';
import { cgroupsOf, hostProcessesWith } from '../conformance/executor';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { DAEMON } from '../fixtures/paths';
import { soakSize } from '../fixtures/soak';

interface Mix {
  tasks: number;
  /** Killed by the parent at a short deadline. */
  timeouts: number;
  /** Cancelled once their sandboxed command is seen running. */
  cancels: number;
  concurrency: number;
}

const EVALUATOR = `import json
print(json.dumps({"correct": True, "objective": 1.0, "direction": "maximize", "metrics": {"n": 1}}))
`;

function describeOneShotCleanup(name: string, mix: Mix, setup: () => Promise<{ executor: Executor; childEnv: Record<string, string>; containersOfUs?: () => Promise<string[]> }>): void {
  describe(`one-shot cleanup: ${name} (${mix.tasks} tasks, ${mix.timeouts} timeouts, ${mix.cancels} cancels)`, function () {
    this.timeout(20 * 60_000);
    const savedTmp = process.env.TMPDIR;
    // A private temp directory: the children inherit it, and other processes on this machine
    // cannot make entries appear or vanish in it.
    const privateTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-oneshot-cleanup-'));
    const markerPrefix = `peagen-oneshot-${randomUUID().slice(0, 8)}`;
    let executor: Executor;
    let childEnv: Record<string, string>;
    let containersOfUs: (() => Promise<string[]>) | undefined;
    let workspace: string;
    let example: string;
    /** What the parent's own executor keeps while it is open (bwrap's /etc copy). */
    let baseline: string[] = [];

    before(async () => {
      process.env.TMPDIR = privateTmp;
      ({ executor, childEnv, containersOfUs } = await setup());
      const availability = await executor.available();
      assert.ok(availability.ok, availability.ok ? '' : availability.reason);
      // Inputs live outside the temp directory under test.
      workspace = fs.mkdtempSync(path.join(savedTmp ?? '/tmp', 'peagen-oneshot-ws-'));
      fs.writeFileSync(path.join(workspace, 'input.txt'), 'input\n');
      example = fs.mkdtempSync(path.join(savedTmp ?? '/tmp', 'peagen-oneshot-example-'));
      fs.chmodSync(example, 0o755);
      fs.writeFileSync(path.join(example, 'program.py'), 'x = 1\n');
      fs.writeFileSync(path.join(example, 'evaluate.py'), EVALUATOR, { mode: 0o644 });
      fs.writeFileSync(
        path.join(example, 'peagen.example.json'),
        JSON.stringify({
          name: 'tiny',
          program: 'program.py',
          evaluator: ['python3', '/harness/evaluate.py', '{program}'],
          objective: { name: 'score', direction: 'maximize' },
          limits: { timeoutMs: 30_000 },
        }),
      );
      baseline = ours();
    });

    after(async () => {
      await executor?.close();
      for (const pid of hostProcessesWith(markerPrefix)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      fs.rmSync(privateTmp, { recursive: true, force: true });
      if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
      if (example) fs.rmSync(example, { recursive: true, force: true });
    });

    const ours = (): string[] => fs.readdirSync(privateTmp).filter((entry) => entry.startsWith('peagen-'));

    it('leaves no sandbox directory, cgroup, container or process behind, whether a child completes, times out or is cancelled', async function () {
      // The kills spread evenly over the run.
      const period = Math.floor(mix.tasks / Math.max(mix.timeouts, mix.cancels));
      let timeouts = 0;
      let cancels = 0;
      const kinds = Array.from({ length: mix.tasks }, (_, index): 'normal' | 'timeout' | 'cancel' => {
        if (index % period === 1 && timeouts < mix.timeouts) return (timeouts++, 'timeout');
        if (index % period === Math.floor(period / 2) + 1 && cancels < mix.cancels) return (cancels++, 'cancel');
        return 'normal';
      });
      const exitReasons: Partial<Record<ExitReason, number>> = {};
      const problems: string[] = [];
      let next = 0;

      const runOne = async (index: number): Promise<void> => {
        const kind = kinds[index] ?? 'normal';
        const marker = `${markerPrefix}-${index}x`;
        const evaluate = index % 2 === 1 && kind === 'normal';
        let task: Task;
        if (evaluate) {
          task = newTask({ kind: 'evaluate', payload: { exampleDir: example, program: `x = ${index}\n` } });
        } else {
          const command =
            kind === 'normal' ? ['sh', '-c', 'cat input.txt > copy.txt && cat copy.txt', marker] : ['python3', '-c', 'import time; time.sleep(60)', marker];
          // Deadlines from 0.3 s to 3 s: the kill lands while the child starts, while its
          // sandbox is made, or while the command runs.
          const deadline = kind === 'timeout' ? Date.now() + 300 + ((index * 137) % 2_700) : undefined;
          task = newTask({ kind: 'execute', payload: { command, workspace, limits: { timeoutMs: 60_000 } }, ...(deadline !== undefined && { deadline }) });
        }
        const controller = new AbortController();
        const cancelWhenRunning =
          kind === 'cancel'
            ? (async () => {
                const giveUpAt = Date.now() + 60_000;
                while (!controller.signal.aborted && hostProcessesWith(marker).length === 0 && Date.now() < giveUpAt) await delay(20);
                controller.abort('cancelled');
              })()
            : Promise.resolve();
        const { outcome, exitReason } = await runOneShot(task, {
          entry: DAEMON,
          config: ConfigSchema.parse({ sandbox: { executor: childEnv.PEAGEN_EXECUTOR, ...(childEnv.DOCKER_HOST && { dockerHost: childEnv.DOCKER_HOST }) } }),
          env: childEnv,
          workerId: `cleanup-${index}`,
          signal: controller.signal,
          childScope: () => {
            const owner = newSandboxOwner();
            return { env: { [SANDBOX_OWNER_ENV]: owner }, release: () => executor.reclaim(owner) };
          },
        });
        controller.abort('completed');
        await cancelWhenRunning;
        exitReasons[exitReason] = (exitReasons[exitReason] ?? 0) + 1;
        if (kind === 'normal') {
          const result = outcome.kind === 'result' ? outcome.result : undefined;
          if (exitReason !== 'completed' || result?.status !== 'ok') problems.push(`task ${index} (${task.kind}) ended ${exitReason}: ${JSON.stringify(outcome).slice(0, 600)}`);
          else if (evaluate && (result.data as { correct?: boolean }).correct !== true) problems.push(`evaluate task ${index}: ${JSON.stringify(result.data).slice(0, 600)}`);
        } else if (kind === 'cancel' && exitReason !== 'cancelled') {
          problems.push(`task ${index} was to be cancelled mid-run but ended ${exitReason}`);
        }
        const left = hostProcessesWith(marker);
        if (left.length > 0) problems.push(`task ${index} (${kind}): processes still running after its child exited: ${left.join(', ')}`);
      };

      await Promise.all(
        Array.from({ length: mix.concurrency }, async () => {
          while (next < kinds.length) await runOne(next++);
        }),
      );

      assert.deepEqual(problems, []);
      // A child may still end its own run at the deadline and answer before the parent's
      // kill lands; most do not.
      assert.ok((exitReasons.timeout ?? 0) > 0, `the parent killed no child at its deadline: ${JSON.stringify(exitReasons)}`);
      assert.equal(exitReasons.cancelled, mix.cancels, JSON.stringify(exitReasons));
      assert.deepEqual(ours(), baseline, 'entries left in the temp directory');
      assert.deepEqual(cgroupsOf(String(process.pid)), [], 'cgroups left');
      if (containersOfUs) {
        // A container whose child was killed mid-create is removed by the late reclaim.
        let left = await containersOfUs();
        for (let wait = 0; left.length > 0 && wait < LATE_RECLAIM_MS + 10_000; wait += 250) {
          await delay(250);
          left = await containersOfUs();
        }
        assert.deepEqual(left, [], 'containers left');
      }
      assert.deepEqual(hostProcessesWith(markerPrefix), []);
      this.test!.title += ` [exits: ${JSON.stringify(exitReasons)}]`;
    });
  });
}

// Smoke sizes (npm test) keep each full run's share of tasks that time out and are cancelled.
describeOneShotCleanup('bwrap', { tasks: soakSize(200, 60), timeouts: soakSize(20, 6), cancels: soakSize(20, 6), concurrency: 4 }, async () => ({
  executor: new BwrapExecutor(),
  childEnv: { PEAGEN_EXECUTOR: 'bwrap' },
}));

describe('one-shot cleanup with docker', function () {
  this.timeout(20 * 60_000);
  let engine: DockerEngine | undefined;
  after(async () => {
    if (engine) await releaseDockerEngine();
  });
  describeOneShotCleanup('docker', { tasks: soakSize(40, 20), timeouts: soakSize(8, 4), cancels: soakSize(8, 4), concurrency: 3 }, async () => {
    engine = await useDockerEngine();
    const { dockerHost, image, docker } = engine;
    return {
      executor: new DockerExecutor({ dockerHost, image }),
      childEnv: { PEAGEN_EXECUTOR: 'docker', DOCKER_HOST: dockerHost },
      containersOfUs: async () =>
        (await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL] } }))
          .filter((info) => (info.Labels?.[CONTAINER_LABEL] ?? '').startsWith(`${os.hostname()}:${process.pid}-`))
          .map((info) => info.Id),
    };
  });
});

/**
 * Evolution runs served by a real daemon: `evolve run` without --sync starts the run in the
 * daemon and follows its progress; the run messages of shared/protocol.ts (what the editor's
 * Evolution view uses) answer from live and finished runs, and refuse bad requests clearly.
 * The runs are bad_sort_ops (bad_sort judged by counted instructions, a fraction of a second
 * per evaluation): the routing is the point, not the timing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import type { RunProgress } from '../../shared/evolution';
import { GetElites, GetProgram, ListRuns, PeagenErrorCodes, StartRun, StopRun } from '../../shared/protocol';
import { DaemonClient } from '../../daemon/rpc/client';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';

const NO_LLM = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' };

describe('evolution runs in the daemon (real process)', function () {
  this.timeout(240_000);
  const daemon = new DaemonProcess();
  const project = new EvolveProject();
  let address: string;

  before(async () => {
    ({ address } = await daemon.start([], NO_LLM));
  });
  after(async () => {
    await daemon.stop();
    project.cleanup();
  });

  it('evolve run without --sync runs in the daemon; list, elites and program answer from the run', async () => {
    const result = await project.run(['--json', 'evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--quick', '--evaluations', '4', '--project', project.dir], { PEAGEN_HOME: daemon.home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /started in the daemon/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.ok(report.best, 'a best program');

    const client = await DaemonClient.connect(address, daemon.token, 'test');
    try {
      const { runs } = await client.request(ListRuns.type, { projectDir: project.dir });
      assert.deepEqual(runs.map((run) => [run.runId, run.state]), [[report.runId, 'finished']]);

      const elites = await client.request(GetElites.type, { runId: report.runId, projectDir: project.dir });
      assert.equal(elites.bestId, report.best.id);
      assert.ok(elites.elites.some((elite) => elite.program.id === report.best!.id), 'the best is a niche elite');
      assert.ok(elites.elites.every((elite) => elite.program.correct), 'only correct programs are elites');

      const { program, ancestors } = await client.request(GetProgram.type, { runId: report.runId, projectDir: project.dir, programId: report.best.id });
      assert.equal(program.code, fs.readFileSync(report.best.file, 'utf8'));
      // From the seed (generation 0) to the parent: one ancestor per generation.
      assert.equal(ancestors.length, program.lineage.generation);
      assert.equal((ancestors[0] ?? program).lineage.mutator, 'seed', 'the lineage starts at the seed');

      await assert.rejects(
        client.request(GetProgram.type, { runId: report.runId, projectDir: project.dir, programId: 'f'.repeat(64) }),
        (error: ResponseError<unknown>) => error.code === PeagenErrorCodes.NotFound,
      );

      // Ids from a client never name another directory: a copy of the run outside .peagen/runs
      // is not reachable by `../..`, an absolute path or any id of the wrong form.
      const outside = path.join(project.dir, 'elsewhere');
      fs.cpSync(path.dirname(path.dirname(report.best.file)), outside, { recursive: true });
      for (const runId of ['../../elsewhere', outside, '..', 'a/b', '.hidden', '']) {
        await assert.rejects(
          client.request(GetElites.type, { runId, projectDir: project.dir }),
          (error: ResponseError<unknown>) => error.code === -32602 && /a run id is the name of a directory under \.peagen\/runs/.test(error.message),
          `GetElites ${JSON.stringify(runId)}`,
        );
      }
      await assert.rejects(
        client.request(GetProgram.type, { runId: report.runId, projectDir: project.dir, programId: `../../${report.best.id}` }),
        (error: ResponseError<unknown>) => error.code === -32602 && /a program id is the sha256 of its source/.test(error.message),
      );
      await assert.rejects(
        client.request(StartRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, resume: '../../elsewhere' }),
        (error: ResponseError<unknown>) => error.code === -32602 && /a run id/.test(error.message),
      );
    } finally {
      client.close();
    }

    // The CLI names a run by its directory too: it reaches the daemon as the run's id and project.
    const resumed = await project.run(['--json', 'evolve', 'run', '--resume', path.dirname(path.dirname(report.best.file)), '--quick', '--evaluations', '6'], { PEAGEN_HOME: daemon.home });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /started in the daemon/);
    assert.equal(parseJson<RunOutput>(resumed).runId, report.runId);
  });

  it('StartRun pushes progress notifications to the end; bad requests are refused with the reason', async () => {
    const client = await DaemonClient.connect(address, daemon.token, 'test');
    try {
      const seen: RunProgress[] = [];
      let finished!: () => void;
      const done = new Promise<void>((resolve) => (finished = resolve));
      client.onRunProgress((progress) => {
        seen.push(progress);
        if (progress.state === 'finished') finished();
      });
      const started = await client.request(StartRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, stop: { evaluations: 2 }, workers: 1, quick: true, mutator: 'offline' });
      assert.ok(started.notes.some((note) => /offline/.test(note)), started.notes.join('\n'));
      await done;
      const mine = seen.filter((progress) => progress.runId === started.runId);
      assert.equal(mine.at(-1)?.state, 'finished');
      assert.equal(mine.at(-1)?.evaluations, 2);
      for (let i = 1; i < mine.length; i++) assert.ok(mine[i]!.evaluations >= mine[i - 1]!.evaluations, 'progress never goes back');

      await assert.rejects(
        client.request(StartRun.type, { exampleDir: '/no/such/example', projectDir: project.dir }),
        (error: ResponseError<unknown>) => error.code === -32602 && /peagen\.example\.json/.test(error.message),
      );
      await assert.rejects(
        client.request(StartRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, mutator: 'llm-patch' }),
        (error: ResponseError<unknown>) => error.code === -32602 && /needs an LLM/.test(error.message),
      );
      assert.deepEqual(await client.request(StopRun.type, { runId: 'no-such-run' }), { stopping: false });
    } finally {
      client.close();
    }
  });
});

/**
 * A run listens to its signal (Ctrl-C, the daemon's shutdown) for hours: each wait of its loop
 * must take its listener off again, or a long run leaks one per wake-up and Node prints
 * "MaxListenersExceededWarning" into the user's terminal.
 */
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptedClient, startScriptedRun } from '../fixtures/scriptedTaskClient';

describe("an evolution run and its signal's listeners", () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-signal-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  it('keeps a bounded number of abort listeners however often the loop wakes, and none once it ends', async () => {
    const interrupt = new AbortController();
    // Mutations answer at once and evaluations are slow: the loop wakes at every mutation's end
    // (its calls are released) many times before a job ends.
    const client = scriptedClient(() => 'child', undefined, 30);
    const { done } = startScriptedRun(projectDir, client, 40, { signal: interrupt.signal, evalSlots: 1, mutateSlots: 6 });
    let most = 0;
    const sample = setInterval(() => {
      most = Math.max(most, getEventListeners(interrupt.signal, 'abort').length);
    }, 1);
    const outcome = await done.finally(() => clearInterval(sample));
    assert.equal(outcome.stopReason, 'evaluations');
    // The loop's one wait; before each wait took its listener off, this reached 8 here.
    assert.ok(most <= 2, `the run's signal had up to ${most} abort listeners at once`);
    assert.equal(getEventListeners(interrupt.signal, 'abort').length, 0, 'listeners left on the signal after the run');
  });
});

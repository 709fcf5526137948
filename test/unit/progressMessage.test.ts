import * as assert from 'node:assert/strict';
import { progressMessage } from '../../extension/evolve/progressMessage';
import { runProgress } from '../fixtures/runProgress';

describe("the line of a followed run's progress notification in the editor", () => {
  const progress = runProgress({ best: { id: 'b'.repeat(64), objective: 2.345, generation: 3, confirmed: false }, generation: 3, evaluations: 40, objectiveUnit: 'x' });

  it('says the generation, the evaluations and the best', () => {
    assert.match(progressMessage(progress), /^generation 3 · 40 evaluations · best speedup 2\.3\dx?$/);
  });

  it('says what the run waits for that nobody provides (a daemon without workers)', () => {
    const notice = 'no worker on the queue serves evaluate tasks (none started, or they stopped)';
    assert.match(progressMessage({ ...progress, notice }), new RegExp(`· waiting: ${notice.replace(/[()]/g, '\\$&')}$`));
  });
});

/**
 * The isolation suites (test/conformance/isolation.ts) against the real bubblewrap: the
 * 100-task cross-contamination stress test with the full probe (100 more, prepared, in
 * bwrapPrepared.test.ts), and every hostile candidate.
 * Traits as in bwrapExecutor.test.ts: whole-sandbox process limits need cgroups when root.
 */
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { openCgroups } from '../../daemon/sandbox/cgroup';
import { describeHostileCandidates, describeIsolationStress } from '../conformance/isolation';

const factory = async (): Promise<BwrapExecutor> => new BwrapExecutor();

describeIsolationStress('bwrap', factory, { tasks: 100 });
describeHostileCandidates('bwrap', factory, {
  isolates: true,
  limitsMemory: true,
  limitsPids: openCgroups().ok || process.getuid?.() !== 0,
});

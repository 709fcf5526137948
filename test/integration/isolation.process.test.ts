/**
 * The isolation suites against the `process` fallback, which does not isolate: only what it
 * promises is checked (a scrubbed environment, private HOME/TMPDIR/workspace copies, a kill of
 * its process group at the deadline and on output floods, the worker surviving). The checks
 * that need a real sandbox (no network, no host files, pid namespaces, memory and pid limits)
 * are left out by its traits; they run against bwrap and docker.
 *
 * Never run the isolating checks against it: its candidates run as the worker's user, so
 * "kill -9 of the parent" would kill the test runner and writes to /etc would land on the host.
 */
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { describeHostileCandidates, describeIsolationStress } from '../conformance/isolation';

const factory = async (): Promise<ProcessExecutor> => new ProcessExecutor(() => {});

describeIsolationStress('process', factory, { tasks: 100, probe: 'sandbox-dirs' });
describeHostileCandidates('process', factory, { isolates: false, limitsMemory: false, limitsPids: false });

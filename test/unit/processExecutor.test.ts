import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { describeExecutorConformance } from '../conformance/executor';

describeExecutorConformance('process', async () => new ProcessExecutor(() => {}), { isolates: false, limitsMemory: false, limitsPids: false });

import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { describeTaskQueueConformance } from '../conformance/taskQueue';

describeTaskQueueConformance('MemoryQueue', async (options) => ({ queue: new MemoryQueue(options) }));

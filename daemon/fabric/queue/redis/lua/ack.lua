-- Completes a live delivery: the entry leaves its stream, the result is stored (with a TTL)
-- and `done` (or `cancelled`) published. A stale delivery changes nothing and publishes nothing.
-- ARGV[8] task id, ARGV[9] lease id, ARGV[10] result JSON, ARGV[11] 'done'|'cancelled',
-- ARGV[12] reason (for cancelled). KEYS[4] the task's record, KEYS[5] its result, KEYS[6] its
-- stream. Answers 1 or 0.
local id, leaseId, resultJson, state, reason = ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12]
local delivery = currentDelivery(id, leaseId)
if not delivery then return 0 end
removeEntry(delivery.stream, leaseId)
publishResult(id, resultJson)
redis.call('HSET', taskKey(id), 'attempts', delivery.attempts + 1)
finishTask(id, state)
emitState(id, delivery.kind, state, delivery.attempts + 1, delivery.consumer, reason)
return 1

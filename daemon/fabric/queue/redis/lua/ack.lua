-- Completes live deliveries: each entry leaves its stream, its result is stored (with a TTL)
-- and `done` (or `cancelled`) published. A stale delivery changes nothing and publishes nothing.
-- ARGV[8] task id, ARGV[9] lease id, ARGV[10] result JSON, ARGV[11] 'done'|'cancelled',
-- ARGV[12] reason (for cancelled); further deliveries follow in groups of five (the acks of one
-- event-loop turn, coalesced by the adapter). KEYS[4...] name each delivery's record, result
-- and stream, in threes. Answers a list: 1 or 0 per delivery.
local answers = {}
for base = 8, #ARGV, 5 do
  local id, leaseId, resultJson, state, reason = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4]
  local delivery = currentDelivery(id, leaseId)
  if delivery then
    removeEntry(delivery.stream, leaseId)
    publishResult(id, resultJson)
    redis.call('HSET', taskKey(id), 'attempts', delivery.attempts + 1)
    finishTask(id, state)
    emitState(id, delivery.kind, state, delivery.attempts + 1, delivery.consumer, reason)
  end
  answers[#answers + 1] = delivery and 1 or 0
end
return answers

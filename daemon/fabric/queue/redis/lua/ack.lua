-- Completes live deliveries: each entry leaves its stream, its result is stored (with a TTL)
-- and `done` (or `cancelled`) published. A stale delivery changes nothing and publishes nothing.
-- Then, in the same call, it may lease the next task to the slots that asked (BullMQ's
-- moveToFinished does the same): a worker with a backlog to work through then pays one round
-- trip per task, not an ack and a claim (lease.lua, prefixed to this script).
-- ARGV[8] acceptors JSON [{kind, provides[]}] of the slots asking for their next task ('' when
-- none asks), ARGV[9] the largest task record handed out, ARGV[10] '1' to sweep expired leases
-- before leasing (the caller asks now and then), ARGV[11] how many slots ask (k),
-- ARGV[12 .. 11+k] their consumer names; then the deliveries, five arguments each: task id,
-- lease id, result JSON, 'done'|'cancelled', reason (for cancelled) (the acks of one
-- event-loop turn, coalesced by the adapter). KEYS[4...] name each delivery's record, result
-- and stream, in threes.
-- Answers {acked, leased}: acked a list with 1 or 0 per delivery; leased lease.lua's answer
-- for the k slots without the idle part ({0} when none asks or nothing waits).
local asking = tonumber(ARGV[11])
local answers = {}
for base = 12 + asking, #ARGV, 5 do
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
if asking == 0 then return { answers, { 0 } } end
local consumers = {}
for i = 12, 11 + asking do consumers[#consumers + 1] = ARGV[i] end
return { answers, leaseTasks(consumers, cjson.decode(ARGV[8]), ARGV[10] == '1', tonumber(ARGV[9]), false) }

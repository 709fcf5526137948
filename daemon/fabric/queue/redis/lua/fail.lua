-- A live delivery failed: retry after back-off (retryBaseMs * 2^(attempts-1)), dead-letter it
-- (non-retryable or out of attempts), or answer it when a cancel was requested meanwhile.
-- ARGV[8] task id, ARGV[9] lease id, ARGV[10] '1' if retryable, ARGV[11] reason.
-- KEYS[4] the task's record, KEYS[5] its result, KEYS[6] its stream (left out when the claim
-- found the task's record unreadable: the stream is then only read from the record).
-- Answers 'retrying' | 'dead' | 'cancelled' | 'stale'.
local id, leaseId, retryable, reason = ARGV[8], ARGV[9], ARGV[10] == '1', ARGV[11]
local delivery = currentDelivery(id, leaseId)
if not delivery then return 'stale' end
removeEntry(delivery.stream, leaseId)
local attempts = delivery.attempts + 1
if delivery.cancel ~= '' then
  answerCancelled(id, delivery.kind, attempts, delivery.cancel, delivery.consumer)
  return 'cancelled'
end
local key = taskKey(id)
if retryable and attempts < maxAttempts then
  redis.call('HSET', key, 'state', 'delayed', 'entry', '', 'attempts', attempts)
  redis.call('ZADD', delayedKey, math.floor(now + retryBaseMs * 2 ^ (attempts - 1)), id)
  emitState(id, delivery.kind, 'retrying', attempts, delivery.consumer, reason)
  return 'retrying'
end
if retryable then reason = reason .. ' (after ' .. attempts .. ' attempts)' end
bury(id, delivery.kind, delivery.stream, attempts, reason, delivery.consumer)
return 'dead'

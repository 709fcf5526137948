-- Cancels a task that has not finished. A waiting (pending or delayed) task is withdrawn and
-- answered with a skip result; for a running one the request is recorded and a `cancel`
-- event published for the worker holding the lease. ARGV[8] task id, ARGV[9] reason.
-- KEYS[4] the task's record, KEYS[5] its result (its stream is read from the record).
-- Answers 1, or 0 when the task is unknown or finished.
local id, reason = ARGV[8], ARGV[9]
local key = taskKey(id)
local record = redis.call('HMGET', key, 'state', 'entry', 'stream', 'kind', 'consumer', 'attempts')
local state, entry, stream, kind, consumer, attempts = record[1], record[2], record[3], record[4], record[5], record[6]
if state == 'inflight' then
  redis.call('HSET', key, 'cancel', reason)
  redis.call('PUBLISH', eventsKey, cjson.encode({
    type = 'cancel', taskId = id, kind = kind, workerId = consumer, leaseId = entry, reason = reason, at = now,
  }))
  return 1
end
if state == 'pending' then
  removeEntry(stream, entry)
elseif state == 'delayed' then
  redis.call('ZREM', delayedKey, id)
else
  return 0
end
answerCancelled(id, kind, attempts, reason, '')
return 1

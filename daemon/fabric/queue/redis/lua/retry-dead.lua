-- Puts a dead-lettered task back in its stream with attempts reset, withdrawing the
-- dead-letter answer. ARGV[8] task id. KEYS[4] the task's record, KEYS[5] its result (its
-- stream is read from the record). Answers 1, or 0 when the task is not dead.
local id = ARGV[8]
local key = taskKey(id)
local record = redis.call('HMGET', key, 'state', 'deadEntry', 'stream', 'kind')
if record[1] ~= 'dead' then return 0 end
if record[2] and record[2] ~= '' then redis.call('XDEL', deadKey, record[2]) end
redis.call('DEL', resultKey(id))
redis.call('PERSIST', key)
redis.call('HSET', key, 'attempts', 0, 'cancel', '', 'consumer', '', 'deadEntry', '')
addToStream(id, record[3])
emitState(id, record[4], 'queued', 0)
return 1

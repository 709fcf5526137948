-- Adds a task: its record, an entry in its requirement set's stream, a `queued` event.
-- ARGV[8] id, ARGV[9] task JSON, ARGV[10] kind, ARGV[11] stream, ARGV[12] attempts.
-- KEYS[4] the task's record, KEYS[5] its result, KEYS[6] the stream (= ARGV[11]).
-- Answers '' when queued, or where the task with this id already is.
local id, taskJson, kind, stream, attempts = ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12]
-- Before any write: a stream key that holds something else is refused, with its name.
refuseUnusableStream(stream)
local key = taskKey(id)
local state = redis.call('HGET', key, 'state')
if state == 'pending' then return 'pending' end
if state == 'delayed' then return 'delayed for a retry' end
if state == 'inflight' then return 'in flight' end
if state == 'dead' then return 'dead-lettered' end
if state or redis.call('EXISTS', resultKey(id)) == 1 then return 'finished, its result is kept' end
redis.call('HSET', key, 'task', taskJson, 'kind', kind, 'stream', stream, 'attempts', attempts, 'cancel', '', 'consumer', '')
addToStream(id, stream)
emitState(id, kind, 'queued', attempts)
return ''

-- Prepended to every queue script (see ../scripts.ts): the shared header arguments, key
-- names and the state changes that several scripts make. Each script runs atomically, and the
-- events it PUBLISHes are part of the same atomic change.
--
-- Keys. Every key of a workspace starts with the key prefix `{NAME}:`, whose braces make NAME
-- the hash tag: on a Redis Cluster all of them are in one hash slot, on one node. Each script
-- declares in KEYS the keys its caller can name: KEYS[1] the streams set, KEYS[2] the delayed
-- set, KEYS[3] the dead-letter stream (every script declares these three, as it may reach
-- them through the shared functions below), then its own from KEYS[4] (the task's record,
-- result and stream when the caller knows the task; see each script's header). Keys found
-- only inside a script cannot be declared in advance: the streams listed in the streams set
-- (claim, reclaim, stats), the records of tasks read from a stream or from the delayed set, a
-- task's stream read from its record (cancel, retry-dead). They are built from the same prefix,
-- so they hash to the same slot as the declared ones: the cluster routes the script to the
-- node that holds them all, and Redis 7 checks it (the `#!lua` line scripts.ts puts first
-- refuses any key of another slot, declared or not).
--
-- ARGV[1] key prefix, ARGV[2] leaseMs, ARGV[3] maxAttempts, ARGV[4] retryBaseMs,
-- ARGV[5] resultTtlMs, ARGV[6] deadMaxLen, ARGV[7] the caller's time as ISO text (finishedAt);
-- a script's own arguments start at ARGV[8].
local prefix = ARGV[1]
local leaseMs = tonumber(ARGV[2])
local maxAttempts = tonumber(ARGV[3])
local retryBaseMs = tonumber(ARGV[4])
local resultTtlMs = tonumber(ARGV[5])
local deadMaxLen = tonumber(ARGV[6])
local isoNow = ARGV[7]

local GROUP = 'peagen'
local RECLAIMER = 'peagen-reclaimer'
local MAX_REASON = 300

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local streamsKey = KEYS[1]
local delayedKey = KEYS[2]
local deadKey = KEYS[3]
local eventsKey = prefix .. ':events'
local streamPrefix = prefix .. ':tasks:'

local function taskKey(id) return prefix .. ':task:' .. id end
local function resultKey(id) return prefix .. ':result:' .. id end

local function field(fields, name)
  for i = 1, #fields, 2 do
    if fields[i] == name then return fields[i + 1] end
  end
  return nil
end

-- The result this script just stored, carried on the task's finishing event (`result`, the
-- JSON as text) so that waiters are answered without a GET; a larger one is left for them to
-- read. Listeners never see it (the adapter takes it off).
local MAX_RESULT_IN_EVENT = 65536
local storedResult = nil

local function emitState(id, kind, state, attempts, workerId, reason)
  local event = { type = 'state', taskId = id, kind = kind, state = state, attempts = tonumber(attempts), at = now }
  if workerId and workerId ~= '' then event.workerId = workerId end
  if reason and reason ~= '' then event.reason = string.sub(reason, 1, MAX_REASON) end
  if storedResult and storedResult.id == id and (state == 'done' or state == 'cancelled' or state == 'dead') then
    event.result = storedResult.json
    storedResult = nil
  end
  redis.call('PUBLISH', eventsKey, cjson.encode(event))
end

-- Why `stream` cannot be used as a task stream of this queue, or nil when it can: the type of
-- a key that something other than Peagen wrote (`string`, `list`...), or `foreign` for a name
-- outside this queue's streams. Every script that walks the streams set skips such keys (stats names them), so one
-- stray key never blocks the queue; a script about to write to one refuses before writing.
local function streamProblem(stream)
  if string.sub(stream, 1, #streamPrefix) ~= streamPrefix then return 'foreign' end
  local kind = redis.call('TYPE', stream).ok
  if kind == 'stream' or kind == 'none' then return nil end
  return kind
end

-- Refuses (before any write) to use a stream key that holds something else; the adapter
-- turns the reply into a message naming the key and how to delete it.
local function refuseUnusableStream(stream)
  local problem = streamProblem(stream)
  if problem then error({ err = 'PEAGEN_BADKEY ' .. problem .. ' ' .. stream }) end
end

-- The streams listed in the streams set that can be used, and the others as {key, problem}.
local function listedStreams()
  local usable, unusable = {}, {}
  for _, stream in ipairs(redis.call('SMEMBERS', streamsKey)) do
    local problem = streamProblem(stream)
    if problem then unusable[#unusable + 1] = { stream, problem } else usable[#usable + 1] = stream end
  end
  return usable, unusable
end

-- Makes sure the stream and its consumer group exist and that the stream is listed.
local function ensureStream(stream)
  refuseUnusableStream(stream)
  if redis.call('SISMEMBER', streamsKey, stream) == 1 and redis.call('EXISTS', stream) == 1 then return end
  redis.pcall('XGROUP', 'CREATE', stream, GROUP, '0', 'MKSTREAM')
  redis.call('SADD', streamsKey, stream)
end

-- Finished or withdrawn entries leave the stream, so XLEN = tasks waiting or running.
local function removeEntry(stream, entry)
  redis.call('XACK', stream, GROUP, entry)
  redis.call('XDEL', stream, entry)
end

local function addToStream(id, stream)
  ensureStream(stream)
  local entry = redis.call('XADD', stream, '*', 'id', id)
  redis.call('HSET', taskKey(id), 'state', 'pending', 'entry', entry)
  return entry
end

local function publishResult(id, resultJson)
  redis.call('SET', resultKey(id), resultJson, 'PX', resultTtlMs)
  storedResult = string.len(resultJson) <= MAX_RESULT_IN_EVENT and { id = id, json = resultJson } or nil
end

-- A finished task keeps its record (for duplicate detection) as long as its result.
local function finishTask(id, state)
  redis.call('HSET', taskKey(id), 'state', state, 'entry', '', 'cancel', '')
  redis.call('PEXPIRE', taskKey(id), resultTtlMs)
end

local function answerCancelled(id, kind, attempts, reason, workerId)
  publishResult(id, cjson.encode({
    taskId = id, status = 'skip', attempts = tonumber(attempts), finishedAt = isoNow,
    error = { code = 'cancelled', message = reason, retryable = false },
  }))
  redis.call('HSET', taskKey(id), 'attempts', attempts)
  finishTask(id, 'cancelled')
  emitState(id, kind, 'cancelled', attempts, workerId, reason)
end

-- Dead-letters a task the queue knows (its record holds the task JSON).
local function bury(id, kind, stream, attempts, reason, workerId)
  local key = taskKey(id)
  local taskJson = redis.call('HGET', key, 'task') or ''
  local deadEntry = redis.call('XADD', deadKey, 'MAXLEN', deadMaxLen, '*',
    'id', id, 'kind', kind, 'stream', stream, 'task', taskJson, 'attempts', attempts,
    'reason', reason, 'failedAt', isoNow)
  publishResult(id, cjson.encode({
    taskId = id, status = 'error', attempts = tonumber(attempts), finishedAt = isoNow,
    error = { code = 'dead_letter', message = reason, retryable = false },
  }))
  redis.call('HSET', key, 'attempts', attempts, 'deadEntry', deadEntry)
  finishTask(id, 'dead')
  emitState(id, kind, 'dead', attempts, workerId, reason)
end

-- Dead-letters a stream entry that names no usable task (written by something else, or its
-- record expired or is corrupt): kept with the reason, never thrown at a worker.
local function buryEntry(stream, entry, fields, reason)
  removeEntry(stream, entry)
  local raw = {}
  for i = 1, #fields, 2 do raw[fields[i]] = fields[i + 1] end
  local id = field(fields, 'id') or ('entry-' .. entry)
  redis.call('XADD', deadKey, 'MAXLEN', deadMaxLen, '*',
    'id', id, 'kind', '', 'stream', stream, 'task', cjson.encode(raw), 'attempts', 0,
    'reason', reason, 'failedAt', isoNow)
end

-- The delivery this stream entry stands for lost its lease: count the lost attempt and queue
-- the task again, answer it if a cancel was requested, or dead-letter it after max attempts.
local function expire(stream, entry, fields)
  removeEntry(stream, entry)
  local id = field(fields, 'id')
  if not id then return end
  local key = taskKey(id)
  local record = redis.call('HMGET', key, 'state', 'entry', 'attempts', 'kind', 'consumer', 'cancel')
  if record[1] ~= 'inflight' or record[2] ~= entry then return end
  local attempts = tonumber(record[3]) + 1
  local kind, consumer, cancel = record[4], record[5] or '', record[6] or ''
  if cancel ~= '' then
    answerCancelled(id, kind, attempts, cancel, consumer)
    return
  end
  local reason = 'lease_expired: worker ' .. consumer .. ' held the task past its lease without finishing it'
  redis.call('HSET', key, 'attempts', attempts)
  if attempts < maxAttempts then
    addToStream(id, stream)
    emitState(id, kind, 'queued', attempts, consumer, reason)
  else
    bury(id, kind, stream, attempts, reason .. ' (after ' .. attempts .. ' attempts)', consumer)
  end
end

-- Reclaims every expired lease in one stream with XAUTOCLAIM; answers how many.
local function reclaimStream(stream)
  local count = 0
  local cursor = '0-0'
  repeat
    local ok, reply = pcall(redis.call, 'XAUTOCLAIM', stream, GROUP, RECLAIMER, leaseMs, cursor, 'COUNT', 100)
    if not ok then return count end
    cursor = reply[1]
    for _, item in ipairs(reply[2]) do
      if item and item[1] then
        expire(stream, item[1], item[2] or {})
        count = count + 1
      end
    end
  until cursor == '0-0'
  return count
end

-- Moves tasks whose retry back-off has passed into their streams.
local function promoteDue()
  local due = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', now, 'LIMIT', 0, 500)
  for _, id in ipairs(due) do
    local record = redis.call('HMGET', taskKey(id), 'state', 'stream')
    local ready = record[1] == 'delayed' and record[2]
    -- A task whose stream key holds something else waits (stats names the key) until it is deleted.
    if not (ready and streamProblem(record[2])) then
      redis.call('ZREM', delayedKey, id)
      if ready then addToStream(id, record[2]) end
    end
  end
end

-- Checks that `leaseId` is the live delivery of task `id`; the task's record or nil.
-- A delivery whose lease has run out is reclaimed here (and is stale).
local function currentDelivery(id, leaseId)
  local key = taskKey(id)
  local record = redis.call('HMGET', key, 'state', 'entry', 'stream', 'kind', 'consumer', 'attempts', 'cancel')
  if record[1] ~= 'inflight' or record[2] ~= leaseId then return nil end
  local stream = record[3]
  local pending = redis.call('XPENDING', stream, GROUP, leaseId, leaseId, 1)
  if not pending[1] then return nil end
  if tonumber(pending[1][3]) >= leaseMs then
    expire(stream, leaseId, { 'id', id })
    return nil
  end
  return { stream = stream, kind = record[4], consumer = record[5] or '', attempts = tonumber(record[6]), cancel = record[7] or '' }
end

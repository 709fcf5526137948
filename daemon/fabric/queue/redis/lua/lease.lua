-- Leasing, shared by claim.lua and ack.lua (prefixed to both after common.lua, see
-- ../scripts.ts): leases the oldest waiting tasks that one of the acceptors can run, one per
-- consumer, reading only the streams whose requirement set some acceptor covers. Due retries
-- are promoted and expired leases in those streams reclaimed (XAUTOCLAIM) first.
-- `consumers`: one task at most is leased to each, in order (the coalesced claims of one queue
-- instance, see ../ClaimDispatcher.ts, or the slots whose acks ask for their next task).
-- `acceptors`: [{kind, provides[]}]. `sweepFirst`: sweep expired leases first (the caller asks
-- now and then). `maxTaskBytes`: the largest task record handed out (a larger one is
-- dead-lettered unread). `wantIdle`: when fewer tasks than consumers are found, sweep once and
-- say where the streams stand (for a blocking read); without it (the next task leased with an
-- ack, where a claim follows when none is found) the reply stops at what was leased.
-- Answers {k, entryId1, taskJson1, attempts1, taskId1, ..., entryIdk, ..., taskIdk}, the k-th
-- leased to the k-th consumer, followed, when fewer tasks than consumers were found and
-- `wantIdle`, by {wakeInMs, stream1, lastId1, stream2, lastId2, ...}: XREAD BLOCK on those ids
-- wakes on the next entry; wakeInMs (-1: none) is when the next retry falls due or lease runs
-- out. Too many bad entries in a row end it with {k, ..., 0}: the caller asks again.
local function leaseTasks(consumers, acceptors, sweepFirst, maxTaskBytes, wantIdle)
  local function covers(kind, requires)
    for _, acceptor in ipairs(acceptors) do
      if acceptor.kind == kind then
        local provided = {}
        for _, cap in ipairs(acceptor.provides) do provided[cap] = true end
        local all = true
        for _, cap in ipairs(requires) do
          if not provided[cap] then all = false break end
        end
        if all then return true end
      end
    end
    return false
  end

  -- Stream names are `${prefix}:tasks:${kind}:${caps joined by ,}`; caps never hold ':' or ','.
  -- A listed key that is not a stream is skipped (stats names it): it never blocks a claim.
  local eligible = {}
  for _, stream in ipairs(redis.call('SMEMBERS', streamsKey)) do
    local set = string.sub(stream, #streamPrefix + 1)
    local kind, caps = string.match(set, '^(.*):([^:]*)$')
    if kind then
      local requires = {}
      for cap in string.gmatch(caps, '[^,]+') do table.insert(requires, cap) end
      if covers(kind, requires) and not streamProblem(stream) then table.insert(eligible, stream) end
    end
  end

  promoteDue()
  local swept = false
  local function sweep()
    swept = true
    for _, stream in ipairs(eligible) do reclaimStream(stream) end
  end
  if sweepFirst then sweep() end

  local function lastDelivered(stream)
    local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', stream)
    if ok then
      for _, group in ipairs(groups) do
        if field(group, 'name') == GROUP then return field(group, 'last-delivered-id') end
      end
    end
    redis.pcall('XGROUP', 'CREATE', stream, GROUP, '0', 'MKSTREAM')
    return '0-0'
  end

  local function older(a, b)
    local am, as = string.match(a, '^(%d+)-(%d+)$')
    local bm, bs = string.match(b, '^(%d+)-(%d+)$')
    am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
    return am < bm or (am == bm and as < bs)
  end

  -- Nothing to claim: when to wake (-1: no retry or lease due) and where each stream's group
  -- stands, for the caller's blocking XREAD.
  local function idleReply()
    local wake = -1
    local firstDue = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
    if firstDue[2] then wake = math.max(0, tonumber(firstDue[2]) - now) end
    local reply = { 0 }
    for _, stream in ipairs(eligible) do
      for _, held in ipairs(redis.call('XPENDING', stream, GROUP, '-', '+', 16)) do
        local left = math.max(0, leaseMs - tonumber(held[3]))
        if wake < 0 or left < wake then wake = left end
      end
      reply[#reply + 1] = stream
      reply[#reply + 1] = lastDelivered(stream)
    end
    reply[1] = wake
    return reply
  end

  -- The stream whose next undelivered entry is the oldest, or nil. With one eligible stream
  -- (the common case) that is the stream itself, found without looking.
  local function oldestStream()
    if #eligible == 1 then return eligible[1] end
    local best, bestId
    for _, stream in ipairs(eligible) do
      local nextEntry = redis.call('XRANGE', stream, '(' .. lastDelivered(stream), '+', 'COUNT', 1)[1]
      if nextEntry and (not best or older(nextEntry[1], bestId)) then
        best, bestId = stream, nextEntry[1]
      end
    end
    return best
  end

  local function readNext(stream, consumer)
    local ok, read = pcall(redis.call, 'XREADGROUP', 'GROUP', GROUP, consumer, 'COUNT', 1, 'STREAMS', stream, '>')
    if not ok then
      lastDelivered(stream) -- creates the missing group
      read = redis.call('XREADGROUP', 'GROUP', GROUP, consumer, 'COUNT', 1, 'STREAMS', stream, '>')
    end
    return read and read[1] and read[1][2][1]
  end

  local leased = { 0 }
  local function answer(tail)
    leased[1] = (#leased - 1) / 4
    for _, value in ipairs(tail) do leased[#leased + 1] = value end
    return leased
  end

  -- A bad entry is dead-lettered and the next one tried, a bounded number of times.
  local bad = 0
  while #leased - 1 < 4 * #consumers and bad < 25 do
    local consumer = consumers[(#leased - 1) / 4 + 1]
    local best = #eligible > 0 and oldestStream() or nil
    local entry = best and readNext(best, consumer)
    if not entry then
      -- Nothing new: sweep expired leases once when nothing was found (they may free a task),
      -- else report idle. A busy queue is swept by the caller's periodic sweepFirst.
      if not wantIdle then return answer({}) end
      if swept or #leased > 1 then return answer(idleReply()) end
      sweep()
    else
      local entryId, fields = entry[1], entry[2] or {}
      local id = field(fields, 'id')
      bad = bad + 1
      if not id then
        buryEntry(best, entryId, fields, 'stream entry ' .. entryId .. ' in ' .. best .. ' names no task id')
      else
        local key = taskKey(id)
        local record = redis.call('HMGET', key, 'state', 'entry', 'task', 'attempts', 'kind')
        if not record[1] then
          buryEntry(best, entryId, fields, 'stream entry ' .. entryId .. ' names task ' .. id .. ', which has no record in ' .. key)
        elseif record[1] ~= 'pending' or record[2] ~= entryId then
          -- A leftover of an older delivery: the task's live entry is elsewhere.
          removeEntry(best, entryId)
        elseif string.len(record[3] or '') > maxTaskBytes then
          removeEntry(best, entryId)
          -- Only its start is kept as evidence: the dead-letter list stays small to read.
          redis.call('HSET', key, 'task', string.sub(record[3], 1, 4096))
          bury(id, record[5] or '', best, tonumber(record[4]) or 0, 'invalid_task: the task record ' .. key .. ' is ' .. string.len(record[3]) .. ' bytes, over the limit of ' .. maxTaskBytes, '')
        elseif not pcall(cjson.decode, record[3] or '') then
          removeEntry(best, entryId)
          bury(id, record[5] or '', best, tonumber(record[4]) or 0, 'invalid_task: the task record ' .. key .. ' holds malformed JSON', '')
        else
          bad = bad - 1
          local attempts = tonumber(record[4]) or 0
          redis.call('HSET', key, 'state', 'inflight', 'consumer', consumer)
          emitState(id, record[5], 'running', attempts + 1, consumer)
          for _, value in ipairs({ entryId, record[3], attempts, id }) do leased[#leased + 1] = value end
        end
      end
    end
  end
  if #leased - 1 == 4 * #consumers then return answer({}) end
  -- Too many bad entries in a row: the caller asks again.
  return answer({ 0 })
end

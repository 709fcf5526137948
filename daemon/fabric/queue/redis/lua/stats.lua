-- Counts after promoting due retries and reclaiming expired leases, so that the numbers say
-- what a worker would see now. Consumers without pending entries are dropped from the groups
-- (their names are only diagnostics), so short-lived workers do not pile up.
-- No keys of its own (the streams come from the streams set).
-- A listed key that is not a stream is skipped and named, so that one stray key never blocks
-- the counts. Answers {dead, n, badKey1, problem1, ..., badKeyn, problemn, stream1, waiting1,
-- inFlight1, delayed1, oldestPendingMs1, stream2, ...}.
promoteDue()
local delayedBy = {}
for _, id in ipairs(redis.call('ZRANGE', delayedKey, 0, -1)) do
  local stream = redis.call('HGET', taskKey(id), 'stream')
  if stream then delayedBy[stream] = (delayedBy[stream] or 0) + 1 end
end
local usable, unusable = listedStreams()
local reply = { redis.call('XLEN', deadKey), #unusable }
for _, bad in ipairs(unusable) do
  reply[#reply + 1] = bad[1]
  reply[#reply + 1] = bad[2]
end
for _, stream in ipairs(usable) do
  reclaimStream(stream)
  local inFlight = 0
  local ok, summary = pcall(redis.call, 'XPENDING', stream, GROUP)
  if ok then inFlight = tonumber(summary[1]) end
  local okConsumers, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', stream, GROUP)
  if okConsumers then
    for _, info in ipairs(consumers) do
      if tonumber(field(info, 'pending')) == 0 and tonumber(field(info, 'idle')) > leaseMs then
        redis.call('XGROUP', 'DELCONSUMER', stream, GROUP, field(info, 'name'))
      end
    end
  end
  reply[#reply + 1] = stream
  reply[#reply + 1] = redis.call('XLEN', stream) - inFlight
  reply[#reply + 1] = inFlight
  reply[#reply + 1] = delayedBy[stream] or 0
  -- Entries are delivered in order: the first after the group's last delivered one is the
  -- oldest waiting, and its id starts with the time (ms) it entered the stream.
  local oldest = 0
  local okGroups, groups = pcall(redis.call, 'XINFO', 'GROUPS', stream)
  if okGroups then
    for _, group in ipairs(groups) do
      if field(group, 'name') == GROUP then
        local nextEntry = redis.call('XRANGE', stream, '(' .. field(group, 'last-delivered-id'), '+', 'COUNT', 1)[1]
        if nextEntry then oldest = math.max(0, now - tonumber(string.match(nextEntry[1], '^(%d+)'))) end
      end
    end
  end
  reply[#reply + 1] = oldest
end
return reply

-- Promotes due retries and reclaims expired leases in every stream. Answers the number of
-- leases reclaimed. No keys of its own (the streams come from the streams set).
promoteDue()
local count = 0
for _, stream in ipairs(redis.call('SMEMBERS', streamsKey)) do count = count + reclaimStream(stream) end
return count

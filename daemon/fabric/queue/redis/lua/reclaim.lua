-- Promotes due retries and reclaims expired leases in every stream. Answers the number of
-- leases reclaimed.
promoteDue()
local count = 0
for _, stream in ipairs(redis.call('SMEMBERS', streamsKey)) do count = count + reclaimStream(stream) end
return count

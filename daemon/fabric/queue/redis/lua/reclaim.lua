-- Promotes due retries and reclaims expired leases in every stream. Answers the number of
-- leases reclaimed. No keys of its own (the streams come from the streams set; a listed key
-- that is not a stream is skipped: stats names it).
promoteDue()
local count = 0
for _, stream in ipairs((listedStreams())) do count = count + reclaimStream(stream) end
return count

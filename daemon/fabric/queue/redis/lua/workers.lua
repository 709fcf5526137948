-- The cluster directory: a hash of records and a sorted set of lapse times (server clock).
-- ARGV[8] 'announce' | 'list'; for announce ARGV[9] worker id, ARGV[10] record JSON,
-- ARGV[11] ttl ms. `list` drops lapsed records and answers the live ones.
-- KEYS[4] the worker records (hash), KEYS[5] their lapse times (sorted set).
local workersKey = KEYS[4]
local lapseKey = KEYS[5]
if ARGV[8] == 'announce' then
  redis.call('HSET', workersKey, ARGV[9], ARGV[10])
  redis.call('ZADD', lapseKey, now + tonumber(ARGV[11]), ARGV[9])
  return 1
end
local lapsed = redis.call('ZRANGEBYSCORE', lapseKey, '-inf', now)
for _, id in ipairs(lapsed) do redis.call('HDEL', workersKey, id) end
redis.call('ZREMRANGEBYSCORE', lapseKey, '-inf', now)
local live = redis.call('ZRANGEBYSCORE', lapseKey, '(' .. now, '+inf')
if #live == 0 then return {} end
return redis.call('HMGET', workersKey, unpack(live))

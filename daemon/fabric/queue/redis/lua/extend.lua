-- Keeps a delivery owned: XCLAIM ... JUSTID resets the entry's idle time (its lease) without
-- counting a delivery. ARGV[8] task id, ARGV[9] lease id (the stream entry). KEYS[4] the
-- task's record, KEYS[5] its result (written if the lease ran out), KEYS[6] its stream.
-- Answers 1 or 0.
local id, leaseId = ARGV[8], ARGV[9]
local delivery = currentDelivery(id, leaseId)
if not delivery then return 0 end
redis.call('XCLAIM', delivery.stream, GROUP, delivery.consumer, 0, leaseId, 'JUSTID')
return 1

-- Gives a live delivery back untouched (attempts unchanged) at the end of its stream, or
-- answers it when a cancel was requested. ARGV[8] task id, ARGV[9] lease id. KEYS[4] the
-- task's record, KEYS[5] its result, KEYS[6] its stream. Answers 1 or 0.
local id, leaseId = ARGV[8], ARGV[9]
local delivery = currentDelivery(id, leaseId)
if not delivery then return 0 end
removeEntry(delivery.stream, leaseId)
if delivery.cancel ~= '' then
  answerCancelled(id, delivery.kind, delivery.attempts, delivery.cancel, delivery.consumer)
  return 1
end
addToStream(id, delivery.stream)
emitState(id, delivery.kind, 'queued', delivery.attempts, delivery.consumer, 'released by its worker')
return 1

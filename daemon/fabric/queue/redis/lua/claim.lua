-- Leases the oldest waiting tasks that one of the acceptors can run, one per consumer (see
-- lease.lua, prefixed to this script). ARGV[8] consumer, ARGV[9] acceptors JSON
-- [{kind, provides[]}], ARGV[10] '1' to sweep expired leases first (the caller asks now and
-- then; a claim that finds nothing sweeps too), ARGV[11] the largest task record handed out,
-- in bytes, ARGV[12...] further consumers: one call leases up to one task to each consumer, in
-- order (the coalesced claims of one queue instance, see ../ClaimDispatcher.ts).
-- No keys of its own: the streams come from the streams set, the tasks from their entries.
-- With one consumer the answer is {1, entryId, taskJson, attempts, taskId} or {0, wakeInMs, ...}.
local consumers = { ARGV[8] }
for i = 12, #ARGV do consumers[#consumers + 1] = ARGV[i] end
return leaseTasks(consumers, cjson.decode(ARGV[9]), ARGV[10] == '1', tonumber(ARGV[11]), true)

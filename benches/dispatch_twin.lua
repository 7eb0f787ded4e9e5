-- The Lua twin of the dispatch bench plan (`plan_gen::generate_pure`, the
-- plan `cargo bench --bench vm` runs as "dispatch/pure VM plan"): the same
-- CHUNKS blocks of assignments, an IF / ELSE IF / ELSE, and two asserts,
-- as Lua statements (CONTAINS, STARTS_WITH and ENDS_WITH as the string
-- library's plain find and sub; durations in milliseconds). It times the
-- loaded chunk's runs alone (not the compile), like the bench, and counts
-- the Lua VM instructions one run executes (a count hook, in a run of its
-- own). Usage: lua5.4 benches/dispatch_twin.lua [CHUNKS] [RUNS]
-- prints: instructions, seconds per run, nanoseconds per instruction.
local chunks = tonumber(arg[1]) or 2000
local runs = tonumber(arg[2]) or 200
local parts = { 'local y = "start"\n' }
for i = 0, chunks - 1 do
  parts[#parts + 1] = string.format([[
do
  local name_%d = "value %d of the bench"
  local n_%d = %d
  local limit_%d = 1500
  if n_%d >= 0 and string.find(name_%d, "value", 1, true) then
    y = name_%d
  elseif limit_%d > 2000 then
    y = "slow"
  else
    y = "other"
  end
  assert(string.sub(y, 1, 5) == "value" and not (string.sub(y, -1) == "x") and n_%d ~= -1)
  assert(name_%d ~= y or limit_%d < 5000)
end
]], i, i, i, i, i, i, i, i, i, i, i, i)
end
local run = assert(load(table.concat(parts)))

local count = 0
debug.sethook(function() count = count + 1 end, "", 1)
run()
debug.sethook()

for _ = 1, 5 do run() end
local times = {}
for r = 1, runs do
  local start = os.clock()
  run()
  times[r] = os.clock() - start
end
table.sort(times)
local median = times[(runs + 1) // 2]
print(string.format("instructions %d\nseconds_per_run %.9f\nns_per_instruction %.3f", count, median, median * 1e9 / count))

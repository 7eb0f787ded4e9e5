-- Baseline for the front-end bench: Lua 5.4's load() on a generated 50,000-line
-- chunk of ordinary statements (about the byte density of benches/plan_gen.rs).
-- Run: lua5.4 benches/lua_load_baseline.lua  (apt-get install lua5.4)
local parts = {}
local i = 0
while #parts < 50000 do
  parts[#parts+1] = string.format('name_%d = "value %d of the bench"', i, i)
  parts[#parts+1] = string.format('if name_%d ~= nil and #name_%d > 3 then', i, i)
  parts[#parts+1] = string.format('  print("module %d ok: " .. name_%d)', i, i)
  parts[#parts+1] = 'else'
  parts[#parts+1] = string.format('  os.execute("make -C build/%d")', i)
  parts[#parts+1] = 'end'
  parts[#parts+1] = string.format('assert(string.find(name_%d, "value") ~= nil, "bad %d")', i, i)
  parts[#parts+1] = 'do'
  parts[#parts+1] = string.format('  local ok, err = pcall(function() return io.open("build/%d/out") end)', i)
  parts[#parts+1] = 'end'
  i = i + 1
end
local src = table.concat(parts, "\n")
local lines = #parts
local runs = 20
local t0 = os.clock()
for _ = 1, runs do
  local f, err = load(src)
  assert(f, err)
end
local per = (os.clock() - t0) / runs
print(string.format("lua load(): %d lines, %d bytes, %.2f ms, %.2f M lines/s, %.1f MB/s", lines, #src, per * 1000, lines / per / 1e6, #src / per / 1e6))

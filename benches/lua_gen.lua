-- Writes a Lua chunk of ordinary statements for the whole-process compile
-- comparison (benches/compile_vs_luac.sh): the statement mix of
-- benches/lua_load_baseline.lua, with names long enough that the bytes per
-- line match the generated bench plan's (about 34).
-- Usage: lua5.4 benches/lua_gen.lua LINES OUT.lua
local lines = assert(tonumber(arg[1]), "usage: lua5.4 benches/lua_gen.lua LINES OUT.lua")
local out = assert(io.open(assert(arg[2], "usage: lua5.4 benches/lua_gen.lua LINES OUT.lua"), "w"))
-- Whole groups of ten lines, so every block is closed: at least LINES lines.
local written, i = 0, 0
local function line(s)
  out:write(s, "\n")
  written = written + 1
end
while written < lines do
  line(string.format('module_name_%d = "value %d of the benchmark"', i, i))
  line(string.format('if module_name_%d ~= nil and #module_name_%d > 3 then', i, i))
  line(string.format('  print("module %d ok: " .. module_name_%d)', i, i))
  line('else')
  line(string.format('  os.execute("make -C build/%d")', i))
  line('end')
  line(string.format('assert(string.find(module_name_%d, "value") ~= nil, "bad %d")', i, i))
  line('do')
  line(string.format('  local ok, err = pcall(function() return io.open("build/%d/out") end)', i))
  line('end')
  i = i + 1
end
out:close()

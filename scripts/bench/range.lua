-- range.lua: wrk script, GET with "Range: bytes=off-(off+len-1)" at random offsets.
-- Ported from /work/shared/bench/range.lua, plus an optional Authorization header
-- (wrk.format drops -H headers when given its own header table).
-- usage: wrk -s range.lua URL -- FILE_SIZE_BYTES [RANGE_LEN_BYTES=1048576] [SEED] [AUTHORIZATION]
local size, len, auth = 0, 1048576, nil
local thread_n = 0
function setup(thread)
  thread_n = thread_n + 1
  thread:set("tid", thread_n)
end
function init(args)
  size = tonumber(args[1])
  len = tonumber(args[2] or 1048576)
  math.randomseed((tonumber(args[3]) or 12345) + (tid or 0))
  auth = args[4]
end
function request()
  local off = math.random(0, size - len)
  local h = { ["Range"] = "bytes=" .. off .. "-" .. (off + len - 1) }
  if auth then h["Authorization"] = auth end
  return wrk.format("GET", nil, h)
end

-- wrk script: POST the benchmark's body with its headers on every request.
-- The harness writes the body and the headers ("Name: value" lines) to files
-- and passes their paths in BENCH_BODY and BENCH_HEADERS.
local function slurp(path)
  local f = assert(io.open(assert(path, "BENCH_BODY/BENCH_HEADERS not set"), "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

wrk.method = "POST"
wrk.body = slurp(os.getenv("BENCH_BODY"))
for line in slurp(os.getenv("BENCH_HEADERS")):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  wrk.headers[name] = value
end

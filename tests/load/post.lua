-- wrk script for tests/load/run.sh: every request POSTs the recording in the file named by the
-- environment variable UPLOAD (gzip-encoded when ENCODING=gzip), and every response is checked:
-- anything but 200 with "valid":true counts as failed.
local file = assert(io.open(assert(os.getenv("UPLOAD"), "UPLOAD is not set"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/octet-stream"
if os.getenv("ENCODING") == "gzip" then
  wrk.headers["Content-Encoding"] = "gzip"
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  valid = 0
  failed = 0
end

function response(status, headers, body)
  if status == 200 and body:find('"valid":true', 1, true) then
    valid = valid + 1
  else
    failed = failed + 1
    if failed <= 3 then
      io.stderr:write("failed response: ", status, " ", body:sub(1, 200), "\n")
    end
  end
end

function done(summary, latency, requests)
  local total_valid, total_failed = 0, 0
  for _, t in ipairs(threads) do
    total_valid = total_valid + t:get("valid")
    total_failed = total_failed + t:get("failed")
  end
  local e = summary.errors
  io.write(string.format("checked: %d valid, %d failed\n", total_valid, total_failed))
  io.write(string.format("socket errors: %d\n", e.connect + e.read + e.write + e.status + e.timeout))
  io.write(string.format("uploads/s: %.1f\n", summary.requests / (summary.duration / 1e6)))
end

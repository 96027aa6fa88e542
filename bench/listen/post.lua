-- wrk script: POST the payload in $BODY_FILE as application/json to the URL
-- given to wrk (which carries ?businessType=...). At the end it prints the
-- 2xx count for the zero-loss check.
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

function done(summary, latency, requests)
  io.write(string.format("ok2xx=%d\n", summary.requests - summary.errors.status))
end

#!/usr/bin/env bash
# Throughput and loss of `whsim listen --capture` (validating every call)
# against a minimal Go net/http handler that reads the body and answers 200,
# both under the same wrk load in the same run (POST, -t2 -c16 -d10s).
# Prints req/s of each, the ratio (target: at least 0.7x, #35) and the zero-loss
# check: capture records = 2xx counted by wrk, every body intact; and listen's
# CPU time per call.
# Run it under the shared lock: flock /tmp/whsim-bench.lock bench/listen/run.sh
# DURATION=10s CONNS=16 EVENT=CREATE_RECEIVABLE_DOC override the load.
# UI=1 also runs `listen --ui` with a client reading the inspector's event
# stream (an open page) under the same load, and prints its ratio to listen
# without --ui and its own loss check.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || apt-get install -y wrk
dur=${DURATION:-10s}
conns=${CONNS:-16}
event=${EVENT:-CREATE_RECEIVABLE_DOC}
tmp=$(mktemp -d)
pid=
sse=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$sse" ] && kill "$sse" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

. bench/whsimbuild.sh
whsim_build "$tmp/whsim"
go build -o "$tmp/tool" ./bench/listen/tool
"$tmp/whsim" generate --event "$event" --seed 1 --output ndjson >"$tmp/body.json"
export BODY_FILE="$tmp/body.json"

wait_ready() { for _ in $(seq 100); do [ -s "$1" ] && return; sleep 0.05; done; echo "not ready: $1" >&2; exit 1; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
# CPU time (user + system, clock ticks) a process has used so far: steadier
# than req/s on a shared machine, where other processes take the cores.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
us_per_call() { awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }'; }

# 1. the baseline
"$tmp/tool" baseline -ready-file "$tmp/base.url" & pid=$!
wait_ready "$tmp/base.url"
wrk -t2 -c"$conns" -d"$dur" -s bench/listen/post.lua "$(cat "$tmp/base.url")?businessType=$event" >"$tmp/base.txt"
kill -INT "$pid"; wait "$pid" || true; pid=

# 2. whsim listen, capturing and validating every call (call lines to a file)
"$tmp/whsim" listen --addr 127.0.0.1:0 --ready-file "$tmp/listen.url" --capture "$tmp/capture.ndjson" \
  >"$tmp/calls.txt" 2>"$tmp/listen.err" & pid=$!
wait_ready "$tmp/listen.url"
wrk -t2 -c"$conns" -d"$dur" -s bench/listen/post.lua "$(cat "$tmp/listen.url")?businessType=$event" >"$tmp/listen.txt"
ticks=$(cpu_ticks "$pid")
kill -INT "$pid"; wait "$pid"; pid=

base=$(rps "$tmp/base.txt"); listen=$(rps "$tmp/listen.txt")
ok2xx=$(awk -F= '/^ok2xx=/ {print $2}' "$tmp/listen.txt")
echo "body: $(wc -c <"$tmp/body.json") bytes ($event), wrk -t2 -c$conns -d$dur, $(nproc) cores"
echo "baseline net/http (read body, 200):       $base req/s"
echo "whsim listen --capture (validate, print): $listen req/s"
awk -v a="$listen" -v b="$base" 'BEGIN { printf "ratio listen/baseline: %.2fx (target >= 0.7x)\n", a / b }'
grep -E 'calls in|by verdict' "$tmp/listen.err" | sed 's/^/listen summary: /'
calls=$(sed -nE 's/^listen stopped: ([0-9]+) calls in .*/\1/p' "$tmp/listen.err")
awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="$calls" 'BEGIN { printf "listen CPU per call: %.1f us\n", t / hz / n * 1e6 }'
echo "wrk 2xx: $ok2xx"
# wrk stops with up to $conns calls in flight: those may be recorded without
# wrk counting the answer, so records may exceed 2xx by at most $conns.
check=$("$tmp/tool" check -capture "$tmp/capture.ndjson" -body "$tmp/body.json")
echo "capture: $check"
records=$(sed -E 's/.*records=([0-9]+).*/\1/' <<<"$check")
lost=$(( ok2xx > records ? ok2xx - records : 0 ))
echo "lost (2xx not recorded): $lost; recorded beyond wrk's count (in flight at stop): $(( records - ok2xx ))"
[ "$lost" -eq 0 ] && [ $(( records - ok2xx )) -le "$conns" ]
[ "${UI:-}" = 1 ] || exit 0

# 3. the same with the inspector on and a page's event stream open
"$tmp/whsim" listen --addr 127.0.0.1:0 --ready-file "$tmp/ui-listen.url" --capture "$tmp/ui-capture.ndjson" \
  --ui 127.0.0.1:0 >"$tmp/ui-calls.txt" 2>"$tmp/ui-listen.err" & pid=$!
wait_ready "$tmp/ui-listen.url"
for _ in $(seq 100); do grep -q 'inspector on' "$tmp/ui-listen.err" && break; sleep 0.05; done
ui=$(sed -n 's/.*inspector on \(http[^ ]*\).*/\1/p' "$tmp/ui-listen.err") # the page, ?token=... on it
curl -sN -H "Authorization: Bearer ${ui##*token=}" "${ui%%\?*}api/stream" >"$tmp/stream.txt" & sse=$!
wrk -t2 -c"$conns" -d"$dur" -s bench/listen/post.lua "$(cat "$tmp/ui-listen.url")?businessType=$event" >"$tmp/ui.txt"
uiticks=$(cpu_ticks "$pid")
kill -INT "$pid"; wait "$pid"; pid=
wait "$sse" || true; sse=
withui=$(rps "$tmp/ui.txt")
ui2xx=$(awk -F= '/^ok2xx=/ {print $2}' "$tmp/ui.txt")
echo "whsim listen --capture --ui, stream open:  $withui req/s"
awk -v a="$withui" -v b="$listen" 'BEGIN { printf "ratio with --ui / without: %.2fx (target: no drop, ~1.0x)\n", a / b }'
grep -E 'calls in|inspector missed' "$tmp/ui-listen.err" | sed 's/^/listen --ui summary: /'
echo "events streamed to the page: $(grep -c '^event: call' "$tmp/stream.txt")"
check=$("$tmp/tool" check -capture "$tmp/ui-capture.ndjson" -body "$tmp/body.json")
echo "capture (--ui): $check, wrk 2xx: $ui2xx"
uirecords=$(sed -E 's/.*records=([0-9]+).*/\1/' <<<"$check")
echo "listen CPU per call: $(us_per_call "$ticks" "$records") µs without --ui, $(us_per_call "$uiticks" "$uirecords") µs with --ui and the stream open"
records=$uirecords
lost=$(( ui2xx > records ? ui2xx - records : 0 ))
echo "lost with --ui (2xx not recorded): $lost"
[ "$lost" -eq 0 ] && [ $(( records - ui2xx )) -le "$conns" ]

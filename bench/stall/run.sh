#!/usr/bin/env bash
# Coordinated omission: `whsim send --rate` and vegeta, one after the other
# in the same run, against the same receiver that holds every call arriving
# in the first second of every five until that second ends. A fifth of the
# calls wait (up to a second), so a true p90 is about 500 ms and a true p99
# about 950 ms. Prints both tools' p90 and p99 and whsim/vegeta (goal:
# 0.7x-1.4x on both), then whsim's rate against a receiver that never
# stalls (goal: within 1% of --rate).
# RATE (200), SECS (10), C (8: whsim's --concurrency, vegeta's -workers).
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${RATE:-200}
secs=${SECS:-10}
c=${C:-8}
vegeta=${VEGETA:-$(command -v vegeta || echo "$(go env GOPATH)/bin/vegeta")}
[ -x "$vegeta" ] || { echo "need vegeta: go install github.com/tsenart/vegeta/v12@v12.13.0" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/whsim" ./cmd/whsim
go build -o "$tmp/receiver" ./bench/send/receiver
start_receiver() { # $1: file for the URL, then flags
  local f=$1; shift
  "$tmp/receiver" "$@" >"$f" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$f" ] && break; sleep 0.1; done
}
start_receiver "$tmp/stall.url" -stall 1s -every 5s
start_receiver "$tmp/steady.url"
stall=$(cat "$tmp/stall.url")
steady=$(cat "$tmp/steady.url")
event=CREATE_RECEIVABLE_DOC
"$tmp/whsim" generate --event $event --seed 1 --output ndjson >"$tmp/body.json"
echo "stalling receiver $stall (1 s of every 5), ${rate}/s for ${secs}s, concurrency $c"

# whsim: the summary's latencyMs.
"$tmp/whsim" send --url "$stall" --event $event --rate "$rate" --duration "${secs}s" --concurrency "$c" \
  --output json | tail -n 1 >"$tmp/whsim.json"
w90=$(sed -E 's/.*"latencyMs":\{[^}]*"p90":([0-9.]+).*/\1/' "$tmp/whsim.json")
w99=$(sed -E 's/.*"latencyMs":\{[^}]*"p99":([0-9.]+).*/\1/' "$tmp/whsim.json")

# vegeta: its JSON report's latencies, in ns.
printf 'POST %s?businessType=%s\nContent-Type: application/json\n@%s\n' "$stall" $event "$tmp/body.json" >"$tmp/targets"
"$vegeta" attack -targets "$tmp/targets" -rate "$rate" -duration "${secs}s" -workers "$c" |
  "$vegeta" report -type json >"$tmp/vegeta.json"
v90=$(sed -E 's/.*"90th":([0-9.]+).*/\1/' "$tmp/vegeta.json" | awk '{print $1/1e6}')
v99=$(sed -E 's/.*"99th":([0-9.]+).*/\1/' "$tmp/vegeta.json" | awk '{print $1/1e6}')

printf 'whsim   p90 %8.1f ms  p99 %8.1f ms\n' "$w90" "$w99"
printf 'vegeta  p90 %8.1f ms  p99 %8.1f ms\n' "$v90" "$v99"
awk -v a="$w90" -v b="$v90" -v c="$w99" -v d="$v99" 'BEGIN {
  printf "whsim/vegeta p90 %.2fx  p99 %.2fx (goal 0.7x-1.4x)\n", a/b, c/d }'

# The rate on a receiver that never stalls: deliveries over the scheduled span.
"$tmp/whsim" send --url "$steady" --event $event --rate "$rate" --duration "${secs}s" --concurrency "$c" \
  --output json | tail -n 1 >"$tmp/steady.json"
sent=$(sed -E 's/.*"sent":([0-9]+).*/\1/' "$tmp/steady.json")
rps=$(sed -E 's/.*"requestsPerSecond":([0-9.]+).*/\1/' "$tmp/steady.json")
awk -v s="$sent" -v r="$rps" -v want="$rate" -v secs="$secs" 'BEGIN {
  printf "never stalling: %d sent in %ss, %.1f req/s, %.2f%% off --rate %s (goal within 1%%)\n", s, secs, r, (r-want)/want*100, want }'

#!/usr/bin/env bash
# The connection-memory attack on `whsim listen --capture`: rounds of 300
# connections at once, each declaring a 10 MB Content-Length, and prints
# listen's peak RSS (VmHWM from /proc/PID/status) for each attack, against
# a fresh listen each:
#   declared: each sends 1 byte, holds the connection 1 s, closes it (5 rounds)
#   whole:    each sends its whole 10 MB body and waits for the answer (1 round)
# The goal is a peak under 400 MB. Loopback only; every run is bounded.
# Run it under the shared lock: flock /tmp/whsim-bench.lock bench/listen/memory.sh
# CONNS=300 SIZE=10485760 ROUNDS=5 override the attack.
set -euo pipefail
cd "$(dirname "$0")/../.."
conns=${CONNS:-300}
size=${SIZE:-10485760}
rounds=${ROUNDS:-5}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/whsim" ./cmd/whsim
go build -o "$tmp/tool" ./bench/listen/tool

# attack NAME SEND ROUNDS: one attack against a fresh listen, then its peak RSS.
attack() {
  rm -f "$tmp/url" "$tmp/capture.ndjson"
  "$tmp/whsim" listen --addr 127.0.0.1:0 --ready-file "$tmp/url" --capture "$tmp/capture.ndjson" \
    >/dev/null 2>"$tmp/listen.err" & pid=$!
  for _ in $(seq 100); do [ -s "$tmp/url" ] && break; sleep 0.05; done
  addr=$(sed -E 's#^http://([^/]+)/.*#\1#' "$tmp/url")
  timeout 300 "$tmp/tool" declare -addr "$addr" -c "$conns" -size "$size" -send "$2" -rounds "$3" -hold 1s
  hwm=$(awk '/^VmHWM:/ {printf "%d MB", $2 / 1024}' "/proc/$pid/status")
  kill -INT "$pid"; wait "$pid" || true; pid=
  echo "$1: peak RSS (VmHWM) $hwm; $(grep -E "calls in|by status" "$tmp/listen.err" | sed "s/^listen stopped: //" | tr -s " \n" " ")"
}
attack declared 1 "$rounds"
attack whole "$size" 1

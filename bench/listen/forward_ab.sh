#!/usr/bin/env bash
# A/B of `whsim listen --forward-to` with no --fault: the binary of REF
# (default: where this branch left main) against the working tree's, both
# forwarding to the same minimal receiver under the same wrk load in one
# run, alternating A B A B so that the machine's other load falls on both.
# Prints req/s and listen's CPU time per call of each round, and the ratio
# of the medians (B/A CPU per call: about 1.00 means faults off cost nothing).
# Run it under the shared lock: flock /tmp/whsim-bench.lock bench/listen/forward_ab.sh
#   bench/listen/forward_ab.sh [<git ref>]   (REF=<ref> works too)
# DURATION=5s CONNS=8 ROUNDS=2 override; BASE_BIN=/path/to/whsim uses a binary already built as A.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed (scripts/install-tools.sh)" >&2; exit 2; }
ref=${1:-${REF:-$(git merge-base HEAD main)}}
dur=${DURATION:-5s}
conns=${CONNS:-8}
rounds=${ROUNDS:-2}
event=CREATE_RECEIVABLE_DOC
tmp=$(mktemp -d)
pid=
rpid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$rpid" ] && kill "$rpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if [ -n "${BASE_BIN:-}" ]; then
  cp "$BASE_BIN" "$tmp/a"
else
  mkdir "$tmp/a-src"
  git archive "$ref" | tar -x -C "$tmp/a-src"
  (cd "$tmp/a-src" && go build -o "$tmp/a" ./cmd/whsim)
fi
go build -o "$tmp/b" ./cmd/whsim
go build -o "$tmp/tool" ./bench/listen/tool
"$tmp/b" generate --event "$event" --seed 1 --output ndjson >"$tmp/body.json"
export BODY_FILE="$tmp/body.json"

wait_ready() { for _ in $(seq 100); do [ -s "$1" ] && return; sleep 0.05; done; echo "not ready: $1" >&2; exit 1; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

"$tmp/tool" baseline -ready-file "$tmp/recv.url" & rpid=$!
wait_ready "$tmp/recv.url"
echo "A = ${BASE_BIN:-$(git rev-parse --short "$ref")}, B = working tree; wrk -t2 -c$conns -d$dur; listen --forward-to --capture, no --fault; $(nproc) cores"
for r in $(seq "$rounds"); do
  for v in a b; do
    rm -f "$tmp/l.url"
    "$tmp/$v" listen --addr 127.0.0.1:0 --ready-file "$tmp/l.url" --forward-to "$(cat "$tmp/recv.url")" \
      --capture "$tmp/$v-$r.ndjson" >/dev/null 2>"$tmp/$v-$r.err" & pid=$!
    wait_ready "$tmp/l.url"
    wrk -t2 -c"$conns" -d"$dur" -s bench/listen/post.lua "$(cat "$tmp/l.url")?businessType=$event" >"$tmp/$v-$r.txt"
    ticks=$(cpu_ticks "$pid")
    kill -INT "$pid"; wait "$pid"; pid=
    calls=$(sed -nE 's/^listen stopped: ([0-9]+) calls in .*/\1/p' "$tmp/$v-$r.err")
    us=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="$calls" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')
    echo "round $r ${v^^}: $(rps "$tmp/$v-$r.txt") req/s, $us us CPU per call ($calls calls)"
    echo "$us" >>"$tmp/$v.us"
  done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END { print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2 }'; }
awk -v a="$(median "$tmp/a.us")" -v b="$(median "$tmp/b.us")" 'BEGIN { printf "median CPU per call: A %.1f us, B %.1f us, B/A %.2f\n", a, b, b / a }'

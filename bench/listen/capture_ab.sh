#!/usr/bin/env bash
# A/B of `whsim listen --capture` (validating and recording every call, as
# run.sh measures it against net/http): the binary of a git ref against the
# working tree's, under the same wrk load in one run, the order of the two
# swapped every round so that the machine's other load falls on both.
# Prints req/s and listen's CPU time per call of each round, the ratio of
# the median req/s (B/A: want >= 0.97) and of the median CPU per call
# (B/A: want <= 1.03), and checks that each round recorded every call wrk
# counted.
#   bench/listen/capture_ab.sh [<git ref>]      default main
#   BASE_BIN=/path/to/whsim bench/listen/capture_ab.sh   a binary already built
#   B_BIN=/path/to/whsim bench/listen/capture_ab.sh <ref>  B is that binary, not
#     the working tree's (a scratch build of an idea, measured uncommitted)
# Run it under the shared lock: flock /tmp/whsim-bench.lock bench/listen/capture_ab.sh
# DURATION=5s CONNS=16 ROUNDS=3 override.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is not installed (scripts/install-tools.sh)" >&2; exit 2; }
ref=${1:-main}
dur=${DURATION:-5s}
conns=${CONNS:-16}
rounds=${ROUNDS:-3}
event=CREATE_RECEIVABLE_DOC
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if [ -n "${BASE_BIN:-}" ]; then
  cp "$BASE_BIN" "$tmp/a"; label="${1:+$1, }$BASE_BIN"
else
  mkdir "$tmp/a-src"
  git archive "$ref" | tar -x -C "$tmp/a-src"
  (cd "$tmp/a-src" && go build -o "$tmp/a" ./cmd/whsim)
  label=$(git rev-parse --short "$ref^{commit}")
fi
if [ -n "${B_BIN:-}" ]; then
  cp "$B_BIN" "$tmp/b"; blabel=$B_BIN
else
  go build -o "$tmp/b" ./cmd/whsim; blabel="working tree"
fi
go build -o "$tmp/tool" ./bench/listen/tool
"$tmp/b" generate --event "$event" --seed 1 --output ndjson >"$tmp/body.json"
export BODY_FILE="$tmp/body.json"

wait_ready() { for _ in $(seq 100); do [ -s "$1" ] && return; sleep 0.05; done; echo "not ready: $1" >&2; exit 1; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "A = $label, B = $blabel; wrk -t2 -c$conns -d$dur; listen --capture; $(nproc) cores"
lost=0
for r in $(seq "$rounds"); do
  order="a b"; [ $((r % 2)) -eq 0 ] && order="b a"
  for v in $order; do
    rm -f "$tmp/l.url"
    "$tmp/$v" listen --addr 127.0.0.1:0 --ready-file "$tmp/l.url" --capture "$tmp/$v-$r.ndjson" \
      >/dev/null 2>"$tmp/$v-$r.err" & pid=$!
    wait_ready "$tmp/l.url"
    wrk -t2 -c"$conns" -d"$dur" -s bench/listen/post.lua "$(cat "$tmp/l.url")?businessType=$event" >"$tmp/$v-$r.txt"
    ticks=$(cpu_ticks "$pid")
    kill -INT "$pid"; wait "$pid"; pid=
    calls=$(sed -nE 's/^listen stopped: ([0-9]+) calls in .*/\1/p' "$tmp/$v-$r.err")
    us=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v n="$calls" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')
    ok2xx=$(awk -F= '/^ok2xx=/ {print $2}' "$tmp/$v-$r.txt")
    records=$(sed -E 's/.*records=([0-9]+).*/\1/' <<<"$("$tmp/tool" check -capture "$tmp/$v-$r.ndjson" -body "$tmp/body.json")")
    [ "$records" -ge "$ok2xx" ] || lost=$((lost + ok2xx - records))
    rm -f "$tmp/$v-$r.ndjson"
    echo "round $r ${v^^}: $(rps "$tmp/$v-$r.txt") req/s, $us us CPU per call ($calls calls, $records recorded, wrk 2xx $ok2xx)"
    rps "$tmp/$v-$r.txt" >>"$tmp/$v.rps"
    echo "$us" >>"$tmp/$v.us"
  done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END { print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2 }'; }
awk -v a="$(median "$tmp/a.rps")" -v b="$(median "$tmp/b.rps")" 'BEGIN { printf "median req/s: A %.0f, B %.0f, ratio B/A %.3f (want >= 0.97)\n", a, b, b / a }'
awk -v a="$(median "$tmp/a.us")" -v b="$(median "$tmp/b.us")" 'BEGIN { printf "median CPU per call: A %.1f us, B %.1f us, ratio B/A %.3f (want <= 1.03)\n", a, b, b / a }'
echo "lost (2xx not recorded): $lost"
[ "$lost" -eq 0 ]

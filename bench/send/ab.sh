#!/usr/bin/env bash
# A/B of `whsim send` throughput: this tree against the build of a git ref,
# against the same minimal receiver in one run, alternating builds ROUNDS
# times (default 3; the order swapped every round) so machine noise hits both.
# Prints each run's req/s and CPU µs per delivery, then the ratios of the
# medians (this/base). N (default 50000), C (default 32).
#   bench/send/ab.sh [<git ref>]            default main
#   BASE_BIN=/path/to/whsim bench/send/ab.sh    a binary already built
#   BASE=<checkout dir> bench/send/ab.sh        another checkout, built as it is
set -euo pipefail
cd "$(dirname "$0")/../.."
ref=${1:-main}
n=${N:-50000}
c=${C:-32}
rounds=${ROUNDS:-3}
[ -x /usr/bin/time ] || { echo "need /usr/bin/time (apt-get install time)" >&2; exit 1; }

tmp=$(mktemp -d)
recv_pid=
cleanup() { [ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/b" ./cmd/whsim
if [ -n "${BASE_BIN:-}" ]; then
  cp "$BASE_BIN" "$tmp/a"; base="${1:+$1, }$BASE_BIN"
elif [ -n "${BASE:-}" ]; then
  (cd "$BASE" && go build -o "$tmp/a" ./cmd/whsim); base=$BASE
else
  mkdir "$tmp/src"
  git archive "$ref" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -o "$tmp/a" ./cmd/whsim); base="$ref, $(git rev-parse --short "$ref^{commit}")"
fi
go build -o "$tmp/receiver" ./bench/send/receiver
"$tmp/receiver" >"$tmp/url" &
recv_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(cat "$tmp/url")

run() { # run <binary>: "req/s cpu-µs-per-delivery"
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$tmp/$1" send --url "$url" --event CREATE_RECEIVABLE_DOC \
    --count "$n" --concurrency "$c" --seed 1 --output json >"$tmp/out.ndjson"
  rps=$(tail -n 1 "$tmp/out.ndjson" | sed -E 's/.*"requestsPerSecond":([0-9.]+).*/\1/')
  awk -v r="$rps" -v n="$n" '{printf "%s %.1f\n", r, ($1+$2)*1e6/n}' "$tmp/time"
}
for i in $(seq "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then
    run a >>"$tmp/a.txt"; run b >>"$tmp/b.txt"
  else
    run b >>"$tmp/b.txt"; run a >>"$tmp/a.txt"
  fi
done
median() { sort -n -k"$2" "$1" | awk -v k="$2" '{v[NR]=$k} END {print v[int((NR+1)/2)]}'; }
echo "base ($base):"; cat "$tmp/a.txt"
echo "this tree:"; cat "$tmp/b.txt"
awk -v ar="$(median "$tmp/a.txt" 1)" -v br="$(median "$tmp/b.txt" 1)" \
    -v ac="$(median "$tmp/a.txt" 2)" -v bc="$(median "$tmp/b.txt" 2)" 'BEGIN {
  printf "median req/s: base %.0f, this %.0f: this/base %.3fx\n", ar, br, br/ar
  printf "median CPU µs/delivery: base %.1f, this %.1f: this/base %.3fx\n", ac, bc, bc/ac }'

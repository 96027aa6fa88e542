#!/bin/bash
# A/B of whsim validate's whole command against another build, in one run:
# the same NDJSON (the eight fixtures x REPS, as run.sh makes it), the two
# binaries alternating ROUNDS times, each round's throughput kept; prints
# the median of each and the ratio (this tree / the other). Throughput is
# per CPU second (user + system, the whole process): on a shared machine
# wall time measures the neighbours as much as whsim.
#   bench/validate/ab.sh [<git ref>]        default main
#   BASE_BIN=/path/to/whsim bench/validate/ab.sh   a binary already built
#   CAPTURE=1 bench/validate/ab.sh          the payloads as capture records,
#                                           as run.sh makes them with CAPTURE=1
#   GOMAXPROCS=1 bench/validate/ab.sh       both builds on one CPU
# Needs go and node (to compact the fixtures).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ref=${1:-main}
reps=${REPS:-5000}
rounds=${ROUNDS:-9}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$root"
go build -o "$work/new" ./cmd/whsim
if [ -n "${BASE_BIN:-}" ]; then
	cp "$BASE_BIN" "$work/base"
else
	mkdir "$work/src"
	git archive "$ref" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/base" ./cmd/whsim)
fi

for f in fixtures/*.json; do
	node "$here/line.mjs" "$f"
done >"$work/eight.ndjson"
i=0
while [ $i -lt "$reps" ]; do cat "$work/eight.ndjson"; i=$((i + 1)); done >"$work/payloads.ndjson"
n=$(wc -l <"$work/payloads.ndjson")

run() { # payloads per CPU second of one run of binary $1
	local TIMEFORMAT='%3U %3S' t
	t=$( { time "$1" validate --strict "$work/payloads.ndjson" >"$work/out.txt"; } 2>&1 )
	echo "$t" | awk -v n="$n" '{ printf "%d\n", n / ($1 + $2) }'
}
"$work/base" validate --strict "$work/payloads.ndjson" >"$work/base.txt"
"$work/new" validate --strict "$work/payloads.ndjson" >"$work/new.txt"
cmp -s "$work/base.txt" "$work/new.txt" || { echo "the two builds report differently" >&2; exit 1; }
r=0
while [ $r -lt "$rounds" ]; do
	if [ $((r % 2)) -eq 0 ]; then
		run "$work/base" >>"$work/base.rates"; run "$work/new" >>"$work/new.rates"
	else
		run "$work/new" >>"$work/new.rates"; run "$work/base" >>"$work/base.rates"
	fi
	r=$((r + 1))
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(median "$work/base.rates")
new=$(median "$work/new.rates")
echo "payloads: $n${CAPTURE:+ capture records}, $rounds rounds alternating, median payloads per CPU second${GOMAXPROCS:+ (GOMAXPROCS=$GOMAXPROCS)}"
printf '%-28s %10s\n' "base ($ref)" "$base" "this tree" "$new"
awk -v b="$base" -v n="$new" 'BEGIN { printf "ratio this/base: %.3f (want >= 0.97)\n", n / b }'

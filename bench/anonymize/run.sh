#!/bin/sh
# anonymize benchmark: time and peak memory of whsim anonymize --check over
# 30 MB of each input kind (capture records, NDJSON payloads, one JSON
# document), against whsim validate of the same file in the same run (one
# reading and lexing of every byte: the floor anonymize's two readings,
# replacing and checking sit on).
#   bench/anonymize/run.sh         SIZE=bytes to change the 30 MB
# Needs go and GNU time (/usr/bin/time -v) for peak memory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
size=${SIZE:-31457280}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/whsim" ./cmd/whsim
go run ./bench/anonymize/mkcapture -size "$size" >"$work/capture.ndjson"
# the four events, about 5.3 KB a round as NDJSON and 7.6 KB as a pretty array
"$work/whsim" generate --event all --seed 1 --count $((size / 5350)) --output ndjson >"$work/payloads.ndjson"
"$work/whsim" generate --event all --seed 1 --count $((size / 7640)) --output json >"$work/document.json"
key=0123456789abcdef0123

# measure <label> <cmd...>: wall seconds and peak RSS (MiB) of one run
measure() {
	label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
		[ $? -eq 1 ] || { cat "$work/err" >&2; exit 1; }
	}
	set -- $(cat "$work/time")
	echo "$label $1 $2"
}

printf '%-18s %9s %14s %9s %14s %8s\n' input MB "anonymize s" "peak MiB" "validate s" ratio
for f in capture.ndjson payloads.ndjson document.json; do
	mb=$(awk -v b="$(wc -c <"$work/$f")" 'BEGIN { printf "%.1f", b / 1048576 }')
	set -- $(measure a "$work/whsim" anonymize --key $key --check "$work/$f")
	at=$2 am=$3
	set -- $(measure v "$work/whsim" validate "$work/$f")
	vt=$2
	awk -v f="$f" -v mb="$mb" -v at="$at" -v am="$am" -v vt="$vt" 'BEGIN {
		printf "%-18s %9s %14.2f %9.0f %14.2f %7.1fx\n", f, mb, at, am / 1024, vt, (vt > 0 ? at / vt : 0)
	}'
done
echo "ratio: anonymize time / validate time on the same file (anonymize reads a file twice and checks what it wrote)"

# Linear in the input: a third of each file, so that time growing faster
# than the input (a search of every stand-in for each one, as before
# session twenty-nine's fix) shows as a ratio above 3.
printf '\n%-18s %14s %14s %8s\n' input "a third s" "whole s" ratio
for f in capture.ndjson payloads.ndjson; do
	head -n $(($(wc -l <"$work/$f") / 3)) "$work/$f" >"$work/third-$f"
	set -- $(measure a "$work/whsim" anonymize --key $key --check "$work/third-$f")
	tt=$2
	set -- $(measure a "$work/whsim" anonymize --key $key --check "$work/$f")
	wt=$2
	awk -v f="$f" -v tt="$tt" -v wt="$wt" 'BEGIN { printf "%-18s %14.2f %14.2f %7.2fx\n", f, tt, wt, (tt > 0 ? wt / tt : 0) }'
done
echo "ratio: the whole file's time / a third's (linear: about 3)"

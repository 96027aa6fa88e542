#!/bin/sh
# Validate benchmark: whsim validate against Ajv and santhosh-tekuri/jsonschema
# on the eight fixtures repeated as NDJSON, in one run. whsim checks NDJSON on
# every CPU; it is also timed with GOMAXPROCS=1, one CPU as the others use.
#   bench/validate/run.sh            throughput and ratios
#   bench/validate/run.sh --big      also stream a ~1 GB NDJSON and report max RSS
#   CAPTURE=1 bench/validate/run.sh  the same payloads as listen's capture records
#                                    (Ajv then parses the record, then its body)
# Needs go, node and npm (Ajv is installed into bench/validate/node, not committed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${REPS:-5000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$root"
. "$here/../whsimbuild.sh"
whsim_build "$work/whsim"
go build -o "$work/santhosh" ./bench/validate/santhosh
if [ ! -d "$here/node/node_modules/ajv" ]; then
	npm install --silent --no-audit --no-fund --prefix "$here/node" ajv >/dev/null
fi

# The payloads: each fixture compacted to one line (with CAPTURE=1, inside
# a capture record as listen writes one), repeated.
for f in fixtures/*.json; do
	"$work/whsim" validate --strict "$f" >/dev/null
	basename "$f" .json >>"$work/names.txt"
	node "$here/line.mjs" "$f"
done >"$work/eight.ndjson"
i=0
while [ $i -lt "$reps" ]; do cat "$work/eight.ndjson"; i=$((i + 1)); done >"$work/payloads.ndjson"
n=$(wc -l <"$work/payloads.ndjson")
size=$(wc -c <"$work/payloads.ndjson")
"$work/whsim" schema >"$work/schema.json"

# How each side is timed: whsim as a whole process (start, read the file,
# check, report, exit) by the wall clock, best of three; Ajv in-process,
# its validation loop alone (JSON.parse and validate of lines already in
# memory, after a warm-up pass), best of PASSES=5 passes (ajv.mjs), and
# santhosh-tekuri's loop alone, after a warm-up pass, once. Both favour
# the peers: their start, file read and schema compilation are not timed.
# whsim: the whole command (read, check, report), best of three.
best=0
for _ in 1 2 3; do
	t0=$(date +%s%N)
	"$work/whsim" validate --strict "$work/payloads.ndjson" >"$work/whsim.out"
	t1=$(date +%s%N)
	r=$((n * 1000000000 / (t1 - t0)))
	[ $r -gt $best ] && best=$r
done
whsim=$best
# whsim on one CPU, best of three.
best=0
for _ in 1 2 3; do
	t0=$(date +%s%N)
	GOMAXPROCS=1 "$work/whsim" validate --strict "$work/payloads.ndjson" >/dev/null
	t1=$(date +%s%N)
	r=$((n * 1000000000 / (t1 - t0)))
	[ $r -gt $best ] && best=$r
done
whsim1=$best
ajv=$(cd "$here/node" && node "$here/ajv.mjs" "$work/schema.json" "$work/payloads.ndjson" "$work/names.txt")
if [ -n "${CAPTURE:-}" ]; then # santhosh-tekuri reads bare payloads only
	santhosh="1 0"
else
	santhosh=$("$work/santhosh" "$work/schema.json" "$work/payloads.ndjson")
fi
[ "${ajv##* }" = 0 ] || { echo "Ajv rejected ${ajv##* } payloads" >&2; exit 1; }
[ "${santhosh#* }" = 0 ] || { echo "santhosh-tekuri rejected ${santhosh#* } payloads" >&2; exit 1; }
ajvown=$(echo "$ajv" | cut -d' ' -f2)
ajv=$(echo "$ajv" | cut -d' ' -f1)
santhosh=${santhosh% *}

echo "payloads: $n ($size bytes), the eight fixtures x $reps, one per line${CAPTURE:+, as capture records}"
printf '%-34s %10s payloads/s\n' "whsim validate (whole command)" "$whsim"
printf '%-34s %10s payloads/s\n' "whsim validate, GOMAXPROCS=1" "$whsim1"
printf '%-34s %10s payloads/s\n' "Ajv $(cd "$here/node" && node -p 'require("ajv/package.json").version') (JSON.parse + validate)" "$ajv"
printf '%-34s %10s payloads/s\n' "Ajv, each payload's own schema" "$ajvown"
[ -n "${CAPTURE:-}" ] || printf '%-34s %10s payloads/s\n' "santhosh-tekuri/jsonschema v6" "$santhosh"
awk -v w="$whsim" -v w1="$whsim1" -v a="$ajv" -v o="$ajvown" -v s="$santhosh" 'BEGIN {
	printf "ratio whsim/Ajv:             %.2fx (target >= 6x on captures, #35)\n", w / a
	printf "ratio whsim/Ajv, one CPU:    %.2fx\n", w1 / a
	printf "ratio whsim/Ajv (own schema): %.2fx\n", w / o
	if (s > 1) printf "ratio whsim/santhosh-tekuri: %.2fx (target >= 5)\n", w / s
}'

if [ "${1:-}" = "--big" ]; then
	big=${BIG:-/tmp/whsim-validate-big.ndjson}
	# ~1 GB: the payloads file repeated.
	target=1073741824
	: >"$big"
	while [ "$(wc -c <"$big")" -lt $target ]; do cat "$work/payloads.ndjson" >>"$big"; done
	echo "streaming $(wc -c <"$big") bytes ($(wc -l <"$big") payloads):"
	/usr/bin/time -v "$work/whsim" validate --strict "$big" 2>"$work/time.txt" | tail -1
	grep -E 'Maximum resident set size|Elapsed' "$work/time.txt"
	/usr/bin/time -v "$work/whsim" validate --strict <"$big" 2>"$work/time.txt" | tail -1
	grep -E 'Maximum resident set size' "$work/time.txt" | sed 's/^/stdin: /'
	rm -f "$big"
fi

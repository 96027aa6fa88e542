#!/usr/bin/env bash
# One A/B of the three throughputs #31 holds a structural change to (send,
# listen, validate within 3 %): the build of a git ref against the working
# tree, in one run. It builds the ref once and runs, each alternating the two
# binaries round by round:
#   bench/send/ab.sh             send's req/s and CPU per delivery
#   bench/listen/capture_ab.sh   listen --capture under wrk: req/s, CPU per call
#   bench/validate/ab.sh         validate's payloads per CPU second
# then prints each ratio (this tree / the ref) again at the end.
#   bench/ab.sh <git ref>                 a few minutes on 2 cores
#   QUICK=1 bench/ab.sh <git ref>         a smoke run (3 minutes on a loaded
#                                         2-core machine, builds included): the
#                                         scripts work; its ratios are noise
# Each script's own knobs (N, C, ROUNDS, DURATION, CONNS, REPS) pass through
# (QUICK sets its own).
# Run it on a quiet machine, under the shared lock:
#   flock /tmp/whsim-bench.lock bench/ab.sh <git ref>
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
ref=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git archive "$ref" | tar -x -C "$tmp/src"
(cd "$tmp/src" && go build -o "$tmp/base" ./cmd/whsim)
export BASE_BIN=$tmp/base
unset BASE # bench/send/ab.sh's checkout override: the ref is what is measured here

if [ "${QUICK:-}" = 1 ]; then
	send_env=(N=3000 ROUNDS=3) listen_env=(DURATION=2s ROUNDS=3) validate_env=(REPS=1000 ROUNDS=3)
	quick=" (QUICK: a smoke run, the ratios are noise)"
else
	quick=
	send_env=() listen_env=() validate_env=()
fi
echo "A/B: $ref ($(git rev-parse --short "$ref^{commit}")) against the working tree$quick; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
status=0
step() { # step <name> <log> <env...> -- <script> [args]: run one A/B, keep its output
	local name=$1 log=$2; shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	echo "== $name"
	env ${envs[@]+"${envs[@]}"} "$@" 2>&1 | tee "$log" || { echo "$name: the A/B failed" >&2; status=1; }
}
step send "$tmp/send.log" ${send_env[@]+"${send_env[@]}"} -- bash bench/send/ab.sh "$ref"
step "listen --capture" "$tmp/listen.log" ${listen_env[@]+"${listen_env[@]}"} -- bash bench/listen/capture_ab.sh "$ref"
step validate "$tmp/validate.log" ${validate_env[@]+"${validate_env[@]}"} -- bash bench/validate/ab.sh "$ref"

echo "== ratios, this tree / $ref (want within 3 %: throughput >= 0.97, CPU <= 1.03)"
sed -n 's/^median req\/s: .*this\/base \(.*\)x$/send throughput:             \1/p; s/^median CPU µs\/delivery: .*this\/base \(.*\)x$/send CPU per delivery:       \1/p' "$tmp/send.log"
sed -n 's/^median req\/s: .*ratio B\/A \([0-9.]*\).*/listen --capture throughput: \1/p; s/^median CPU per call: .*ratio B\/A \([0-9.]*\).*/listen --capture CPU per call:\1/p' "$tmp/listen.log" | sed 's/call:\([0-9]\)/call: \1/'
sed -n 's/^ratio this\/base: \([0-9.]*\).*/validate per CPU second:     \1/p' "$tmp/validate.log"
exit "$status"

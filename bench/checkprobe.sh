#!/usr/bin/env bash
# A whole `whsim check` run with the defaults and an HTTP probe, against a
# fast, careful local receiver (bench/checkprobe), interleaved with the same
# run without a probe: the median wall time of each and the ratio. The
# issue's bound is 30 s for the run with a probe. RUNS=n (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-10}
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid"; rm -rf "$tmp"' EXIT

go build -o "$tmp/whsim" ./cmd/whsim
go build -o "$tmp/receiver" ./bench/checkprobe
"$tmp/receiver" >"$tmp/url" &
pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(cat "$tmp/url")

go run ./bench/startcmp -n "$runs" \
  "$tmp/whsim check --url $url/webhook --probe $url/debug/{kind}s/{code}" \
  "$tmp/whsim check --url $url/webhook"
echo "bound: A under 30 s"

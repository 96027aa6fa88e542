#!/usr/bin/env bash
# Crash safety: start `whsim listen --fsync always --capture`, load it from
# 16 senders that log every acknowledged requestId, kill -9 listen in the
# middle of the load, then check every acknowledged call is in the capture
# file, none twice, and at most one torn last line.
# Run it under the shared lock: flock /tmp/whsim-bench.lock bench/listen/kill9.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/whsim" ./cmd/whsim
go build -o "$tmp/tool" ./bench/listen/tool
"$tmp/whsim" generate --event CREATE_RECEIVABLE_DOC --seed 1 --output ndjson >"$tmp/body.json"

"$tmp/whsim" listen --addr 127.0.0.1:0 --ready-file "$tmp/url" --capture "$tmp/capture.ndjson" --fsync always \
  >/dev/null 2>"$tmp/listen.err" & pid=$!
for _ in $(seq 100); do [ -s "$tmp/url" ] && break; sleep 0.05; done
"$tmp/tool" load -url "$(cat "$tmp/url")?businessType=CREATE_RECEIVABLE_DOC" -body "$tmp/body.json" \
  -c 16 -d 20s -n 200000 -acked "$tmp/acked.txt" & loader=$!
sleep "${KILL_AFTER:-2}"
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=
wait "$loader"
"$tmp/tool" check -capture "$tmp/capture.ndjson" -acked "$tmp/acked.txt"
echo "kill -9 after ${KILL_AFTER:-2}s: every acknowledged call recorded, at most one torn line"

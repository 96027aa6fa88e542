#!/usr/bin/env bash
# The inspector's memory, whsim against itself before this change (BASE,
# a git ref: main by default; BASE=none skips it), one after the other in
# one run. Peak RSS is VmHWM from /proc/PID/status, reset (clear_refs 5)
# before each step so each figure is that step's own:
#   inspect load:    `whsim inspect` of a MB-MiB capture (1 GiB) until it serves
#   inspect export:  GET /api/export?format=ndjson, then ?format=har, of all of it
#   listen --ui:     450 POSTs of a 10 MiB body to `listen --capture --ui`
# Goals: the exports within 100 MiB of the loaded inspector's RSS whatever
# the capture's size; listen --ui under 500 MiB (before: 4.4 GB).
# The baseline's HAR export held 7.4 GB in the issue: it runs only with
# BASE_HAR=1, to spare the machine. MB (1024), CALLS (450), BODY_MB (10).
# Loopback only. Run it under the shared lock:
#   flock /tmp/whsim-bench.lock bench/inspect/memory.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${MB:-1024}
calls=${CALLS:-450}
body_mb=${BODY_MB:-10}
base=${BASE:-main}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/whsim" ./cmd/whsim
go build -o "$tmp/mkcapture" ./bench/inspect/mkcapture
if [ "$base" != none ]; then
  mkdir "$tmp/base"
  git archive "$base" | tar -x -C "$tmp/base"
  (cd "$tmp/base" && go build -o "$tmp/whsim-base" ./cmd/whsim)
fi
"$tmp/mkcapture" -out "$tmp/big.ndjson" -mb "$mb" -body 10
"$tmp/mkcapture" -body-out "$tmp/body.json" -body $((body_mb * 1024))
echo "capture: $(du -m "$tmp/big.ndjson" | cut -f1) MiB, $(wc -l <"$tmp/big.ndjson") calls; listen: $calls bodies of $body_mb MiB"

hwm() { awk '/^VmHWM:/ {printf "%d", $2 / 1024}' "/proc/$pid/status"; }
rss() { awk '/^VmRSS:/ {printf "%d", $2 / 1024}' "/proc/$pid/status"; }
reset() { echo 5 >"/proc/$pid/clear_refs"; }
# wait_for FILE: until the process wrote it (or 10 minutes).
wait_for() { for _ in $(seq 6000); do [ -s "$1" ] && return; kill -0 "$pid" || return 1; sleep 0.1; done; return 1; }
# fetch URL TOKEN: GET it whole to /dev/null, the token as the README says.
fetch() {
  if [ -n "$2" ]; then curl -sf -H "Authorization: Bearer $2" -o /dev/null "$1"; else curl -sf -o /dev/null "$1"; fi
}

# inspect BIN NAME
inspect() {
  rm -f "$tmp/ui.txt"
  "$1" inspect "$tmp/big.ndjson" --ui 127.0.0.1:0 --ready-file "$tmp/ui.txt" 2>"$tmp/inspect.err" & pid=$!
  wait_for "$tmp/ui.txt"
  local url base token="" load
  url=$(cat "$tmp/ui.txt"); base=${url%%\?*}
  case $url in *token=*) token=${url##*token=} ;; esac
  load=$(hwm)
  printf '%-6s inspect load    peak %6d MiB (RSS after %d MiB)\n' "$2" "$load" "$(rss)"
  for format in ndjson har; do
    if [ "$format" = har ] && [ "$2" = before ] && [ "${BASE_HAR:-0}" != 1 ]; then continue; fi
    reset
    fetch "${base}api/export?format=$format" "$token"
    printf '%-6s inspect export  %-6s peak %6d MiB\n' "$2" "$format" "$(hwm)"
  done
  kill -INT "$pid"; wait "$pid" || true; pid=
}

# listen BIN NAME
listen() {
  rm -f "$tmp/url" "$tmp/calls.ndjson" "$tmp/listen.err"
  "$1" listen --addr 127.0.0.1:0 --ready-file "$tmp/url" --capture "$tmp/calls.ndjson" --ui 127.0.0.1:0 \
    --max-body $((body_mb + 1))MiB >/dev/null 2>"$tmp/listen.err" & pid=$!
  wait_for "$tmp/url"
  local url; url=$(cat "$tmp/url")
  for i in $(seq "$calls"); do
    curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @"$tmp/body.json" "${url}webhook?businessType=CREATE_RECEIVABLE_DOC"
  done
  sleep 1 # the inspector's feed takes the last calls off listen's path
  printf '%-6s listen --ui     peak %6d MiB (RSS after %d MiB)\n' "$2" "$(hwm)" "$(rss)"
  kill -INT "$pid"; wait "$pid" || true; pid=
  rm -f "$tmp/calls.ndjson"
}

inspect "$tmp/whsim" after
listen "$tmp/whsim" after
if [ "$base" != none ]; then
  inspect "$tmp/whsim-base" before
  listen "$tmp/whsim-base" before
fi

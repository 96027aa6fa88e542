# Sourced by bench/send's run.sh and looproto.sh, from the repository's
# root: a temporary directory $tmp, removed on exit; whsim built into it;
# the null receiver built, started (stopped on exit) and its URL in $url;
# one receipt document of $event in $tmp/body.json, the body the peers send.
tmp=$(mktemp -d)
recv_pid=
cleanup() { [ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

. bench/whsimbuild.sh
whsim_build "$tmp/whsim"
go build -o "$tmp/receiver" ./bench/send/receiver
"$tmp/receiver" >"$tmp/url" &
recv_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(cat "$tmp/url")
event=CREATE_RECEIVABLE_DOC
"$tmp/whsim" generate --event $event --seed 1 --output ndjson >"$tmp/body.json"

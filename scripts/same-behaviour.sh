#!/usr/bin/env bash
# Show that a change left whsim's behaviour as it was (#31): build whsim at
# REF and at REF2 (default: the working tree), run the same seeded runs with
# both and compare their outputs byte for byte, after masking only what
# differs from one run of the same build to the next (ports, times,
# durations, latencies, rates; each mask below says what it hides).
#
#   scripts/same-behaviour.sh REF [REF2]
#   scripts/same-behaviour.sh 36a5e8a          # that build against the working tree
#   scripts/same-behaviour.sh HEAD~3 HEAD
#   KEEP=1 scripts/same-behaviour.sh REF       # keep the outputs (path printed)
#   OUTPUTS=<that path> scripts/same-behaviour.sh REF   # compare kept outputs again
#                                              # (no build, no run: to try a mask)
#
# Compared, each on one line (same / DIFFERENT with a diff excerpt):
#   generate    24,000 seeded payloads: 4 events x 2 shapes x seeds 1-30 x
#               --count 100, as NDJSON; the sha256 of each build's stream
#   validate    text and --output json (exit codes too) over fixtures/*.json,
#               the mutation corpus testdata/validate (each case with its
#               arguments from expect.txt) and validate's fuzz corpora
#               (internal/validate/testdata/fuzz, via scripts/fuzzcorpus)
#   check       against the build's own `listen` on 127.0.0.1:0, --seed 7
#               --fixed-ids: text with --junit, --output json, and a signed
#               run (--secret) in text
#   send        --seed 3 --fixed-ids --concurrency 1 to the build's own listen:
#               --output json, text, and listen's capture of the json run
#   completion  bash, zsh, fish, powershell, and what they offer (whsim
#               __complete: commands, each command's flags, flag values)
#   man         `whsim man` (roff) and `whsim man --format markdown`
# Inputs (fixtures, corpora) come from REF2's tree, so both builds read the
# same bytes. Exit status: 0 when every comparison is the same, 1 otherwise,
# 2 when a build or a run could not be made.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,33p' "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ref_a=$1
ref_b=${2:-}
tmp=${OUTPUTS:-$(mktemp -d)}
pids=()
cleanup() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
	if [ "${KEEP:-}" = 1 ] || [ -n "${OUTPUTS:-}" ]; then echo "outputs kept in $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# build <ref or empty> <dir>: the source tree in <dir>/src, the binary <dir>/whsim
build() {
	mkdir -p "$2/src"
	if [ -z "$1" ]; then
		git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$2/src"
	else
		git archive "$1" | tar -x -C "$2/src"
	fi
	(cd "$2/src" && CGO_ENABLED=0 go build -trimpath -o "$2/whsim" ./cmd/whsim) ||
		{ echo "cannot build ${1:-the working tree}" >&2; exit 2; }
}
if [ -z "${OUTPUTS:-}" ]; then
echo "A = $ref_a ($(git rev-parse --short "$ref_a^{commit}")); B = ${ref_b:-the working tree}${ref_b:+ ($(git rev-parse --short "$ref_b^{commit}"))}"
build "$ref_a" "$tmp/a"
build "$ref_b" "$tmp/b"
inputs=$tmp/b/src
go build -o "$tmp/fuzzcorpus" ./scripts/fuzzcorpus
mkdir -p "$tmp/fuzz"
for c in "$inputs"/internal/validate/testdata/fuzz/*/; do
	n=$(basename "$c")
	"$tmp/fuzzcorpus" "$c" "$tmp/fuzz/$n" >"$tmp/fuzz/$n.list"
done
fi

events="CREATE_PURCHASE_ORDER_INVOICE AUDIT_PURCHASE_ORDER_INVOICE CREATE_RECEIVABLE_DOC ABANDON_RECEIVABLE_DOC"
secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw # the help's example secret: no credential
export NO_COLOR=1 WHSIM_SEND_SECRET= WHSIM_CHECK_SECRET= WHSIM_UI_TOKEN=

wait_ready() { for _ in $(seq 200); do [ -s "$1" ] && return; sleep 0.05; done; echo "listen not ready: $1" >&2; exit 2; }
# start_listen <bin> <dir> <name>: a listen on loopback capturing to <dir>/<name>.capture; sets url and lpid
start_listen() {
	rm -f "$2/$3.url"
	"$1" listen --addr 127.0.0.1:0 --ready-file "$2/$3.url" --capture "$2/$3.capture" \
		>"$2/$3.listen.out" 2>"$2/$3.listen.err" &
	lpid=$!
	pids+=("$lpid")
	wait_ready "$2/$3.url"
	url=$(cat "$2/$3.url")
}
stop_listen() { kill -INT "$lpid"; wait "$lpid" || true; }
# with_exit <command>...: run it, then say its exit status on a line of its own
with_exit() { "$@" && echo "exit 0" || echo "exit $?"; }
# streams <command>...: its stdout, then its stderr line by line after "stderr: ", then its exit status
streams() {
	local err=$tmp/streams.err code=0
	"$@" 2>"$err" || code=$?
	sed 's/^/stderr: /' "$err"
	echo "exit $code"
}

# runs <x>: every run of build x, its outputs in $tmp/x/out
runs() {
	local bin=$tmp/$1/whsim out=$tmp/$1/out
	mkdir -p "$out"
	# generate: 8 event-shape pairs x 30 seeds x 100 = 24,000 payloads
	local e s seed
	for e in $events; do
		for s in described sample; do
			for seed in $(seq 30); do
				"$bin" generate --event "$e" --shape "$s" --seed "$seed" --count 100 --output ndjson
			done
		done
	done >"$out/generate.ndjson"

	# validate: each run's stdout, then its stderr (each line "stderr: "), then
	# its exit status; the two streams apart, since how they interleave in one
	# file is a matter of buffering, not of what either says
	local fmt line f code args
	for fmt in text json; do
		{
			echo "## fixtures"
			(cd "$inputs/fixtures" && streams "$bin" validate --output "$fmt" ./*.json)
			while IFS= read -r line; do
				case $line in '#'* | '') continue ;; esac
				f=$(awk -F' [|] ' '{print $1}' <<<"$line")
				args=$(awk -F' [|] ' '{print $3}' <<<"$line")
				[ "$args" = - ] && args=
				echo "## $f $args"
				# shellcheck disable=SC2086 # expect.txt's arguments are words
				(cd "$inputs/testdata/validate" && streams "$bin" validate --output "$fmt" $args "$f")
			done <"$inputs/testdata/validate/expect.txt"
			for f in "$tmp"/fuzz/*.list; do
				echo "## fuzz $(basename "$f" .list)"
				(cd "${f%.list}" && streams xargs -d '\n' "$bin" validate --output "$fmt" <"$f")
			done
		} >"$out/validate.$fmt"
	done

	# check against this build's listen, seeded, ids fixed
	start_listen "$bin" "$out" check
	code=0; "$bin" check --url "$url" --seed 7 --fixed-ids --load-count 50 --junit "$out/check.junit" \
		>"$out/check.text" 2>"$out/check.text.err" || code=$?; echo "exit $code" >>"$out/check.text"
	code=0; "$bin" check --url "$url" --seed 7 --fixed-ids --load-count 50 --output json \
		>"$out/check.json" 2>"$out/check.json.err" || code=$?; echo "exit $code" >>"$out/check.json"
	code=0; "$bin" check --url "$url" --seed 7 --fixed-ids --load-count 50 --secret "$secret" \
		>"$out/check.signed" 2>"$out/check.signed.err" || code=$?; echo "exit $code" >>"$out/check.signed"
	stop_listen
	# send to a fresh listen, so its capture holds only send's calls
	start_listen "$bin" "$out" send
	code=0; "$bin" send --url "$url" --event all --count 25 --seed 3 --fixed-ids --concurrency 1 --output json \
		>"$out/send.json" 2>"$out/send.json.err" || code=$?; echo "exit $code" >>"$out/send.json"
	stop_listen
	cp "$out/send.capture" "$out/capture.ndjson"
	start_listen "$bin" "$out" sendtext
	code=0; "$bin" send --url "$url" --event all --count 25 --seed 3 --fixed-ids --concurrency 1 \
		>"$out/send.text" 2>"$out/send.text.err" || code=$?; echo "exit $code" >>"$out/send.text"
	stop_listen

	for s in bash zsh fish powershell; do
		with_exit "$bin" completion "$s" >"$out/completion.$s" 2>&1
	done
	# the scripts call back into whsim (cobra's __complete): what they offer is
	# what this says, for the commands, every command's flags and the flags
	# that complete values
	{
		echo "## whsim ''"; with_exit "$bin" __complete '' 2>&1
		for c in $("$bin" __complete '' 2>/dev/null | sed -n 's/^\([a-z][a-z0-9-]*\)\t.*/\1/p'); do
			echo "## whsim $c --"; with_exit "$bin" __complete "$c" -- 2>&1
		done
		for a in "send --event" "send --shape" "send --scenario" "check --checks" "check --exclude-checks" \
			"check --output" "validate --output" "validate --ignore" "listen --fault" "generate --output"; do
			# shellcheck disable=SC2086 # a command and a flag, two words
			echo "## whsim $a ''"; with_exit "$bin" __complete $a '' 2>&1
		done
	} >"$out/completion.values"
	# the pages, each under its name, after what man said and its exit status
	# (a build without --format markdown says so here rather than stopping the run)
	local dir
	for f in roff markdown; do
		dir=$out/man-$f
		mkdir -p "$dir"
		if [ $f = roff ]; then with_exit "$bin" man --dir "$dir"; else with_exit "$bin" man --format markdown --dir "$dir"; fi 2>&1 |
			sed "s#$dir#DIR#g" >"$out/man.$f"
		(cd "$dir" && for p in *; do if [ -f "$p" ]; then echo "## $p"; cat "$p"; fi; done) >>"$out/man.$f"
	done
}

# Masks: each hides one value that changes from run to run of the same build
# (each was seen to differ between two runs of one build: run the script with
# REF=HEAD and no change to see all same), anchored to the words around it so
# a real difference next to it still shows:
#   every output   127.0.0.1:<port> (listen's :0)
#   check, send    a signed call's Webhook-Timestamp and the HMACs over it
#                  (v1,<44 base64>), in curl flags and capture records
#   text, JUnit    a duration after p50/p90/p99/p99.9/max; load's calls/s;
#                  latency's slowest event (the event with the highest p99);
#                  send's latency at the end of a delivery line, its
#                  "<rate> req/s over <elapsed>" line
#   JUnit          time="<seconds>"
#   JSON           the values of latencyMs, elapsedMs, requestsPerSecond,
#                  perSecond, p50..max, p50Ms..maxMs; send's histogram;
#                  slowestEvent
#   capture        a record's time (remote's port by the first mask)
# Nothing else is masked: requestIds, document numbers, bodies, statuses,
# verdicts, counts and every message compare as they are (--fixed-ids).
loopback='s#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g'    # the port listen drew (:0)
# a signed call's timestamp is the clock's, and its signature covers it: both,
# as a curl flag and as a capture record's header (check's replay commands)
# (an HMAC-SHA256 is 44 base64 characters after its version: v1, or the
# battery's unknown v1a; a malformed one stays as it is)
signed_curl="s#-H 'Webhook-Timestamp: [0-9]+'#-H 'Webhook-Timestamp: T'#g"
signed_json='s#"Webhook-Timestamp":\["[0-9]+"\]#"Webhook-Timestamp":["T"]#g'
signature='s#\b(v[0-9]+[a-z]*),[A-Za-z0-9+/]{43}=#\1,S#g'
duration='[0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m[0-9.]*s?)' # Go's duration and whsim's latency forms
mask() { # mask <kind> < raw > masked
	case $1 in
	check.text | check.signed | send.text)
		sed -E -e "$loopback" -e "$signed_curl" -e "$signed_json" -e "$signature" \
			-e "s#(calls at concurrency [0-9]+, )[0-9.]+ calls/s#\1N calls/s#" \
			-e "s#\b(p50|p90|p99|p99\.9|max) $duration#\1 D#g" \
			-e "s#(\(budget [^)]*\), slowest event )[A-Z_]+\$#\1E#" \
			-e "s#^([A-Z_]+ +[0-9a-f-]{36} [0-9]{3}) $duration\$#\1 D#" \
			-e "s#^[0-9.]+ req/s over $duration\$#N req/s over D#"
		;;
	check.junit)
		sed -E -e "$loopback" -e 's# time="[0-9]+\.[0-9]+"# time="T"#g' \
			-e "s#\b(p50|p90|p99|p99\.9|max) $duration#\1 D#g" \
			-e "s#(calls at concurrency [0-9]+, )[0-9.]+ calls/s#\1N calls/s#"
		;;
	check.json | send.json)
		sed -E -e "$loopback" -e "$signed_curl" -e "$signed_json" -e "$signature" \
			-e 's#"(latencyMs|elapsedMs|requestsPerSecond|perSecond|p50|p90|p99|p99\.9|max|p50Ms|p90Ms|p99Ms|maxMs)":[0-9.e+-]+#"\1":N#g' \
			-e 's#"histogram":"[A-Za-z0-9+/=]+"#"histogram":"H"#g' \
			-e 's#"slowestEvent":"[A-Z_]+"#"slowestEvent":"E"#'
		;;
	capture)
		sed -E -e 's#^\{"capture":1,"time":"[^"]+",#{"capture":1,"time":"T",#' -e "$loopback"
		;;
	*) cat ;;
	esac
}

# excerpt: the first 30 lines of a diff, each cut to 240 bytes; a changed
# line long enough to be cut shows from a little before where it differs
# from the line it replaces, so that the difference is in view.
excerpt() {
	LC_ALL=C awk '
		function show(l, from) { if (from > 2) l = substr(l, 1, 1) "..." substr(l, from); if (n < 30) print "    " substr(l, 1, 240); n++ }
		# the lines a hunk took out, shown each beside the one that replaced it
		function flush(i) { for (i = k + 1; i <= m; i++) show(minus[i], 0); m = 0; k = 0 }
		/^-/ { if (k > 0) flush(); minus[++m] = $0; next }
		/^\+/ && k < m {
			old = minus[++k]; p = 2; while (p <= length(old) && substr(old, p, 1) == substr($0, p, 1)) p++
			if (p > 200) { show(old, p - 80); show($0, p - 80); if (n < 30) print "      (the lines differ from byte " p - 1 ")" }
			else { show(old, 0); show($0, 0) }
			next }
		{ flush(); show($0, 0) }
		END { flush(); if (n > 30) print "    ... (" n - 30 " more lines)" }'
}

differ=0
compare() { # compare <label> <file> <mask kind>
	local a=$tmp/a/out/$2 b=$tmp/b/out/$2
	mask "$3" <"$a" >"$a.masked"
	mask "$3" <"$b" >"$b.masked"
	if cmp -s "$a.masked" "$b.masked"; then
		printf '%-22s same\n' "$1"
	else
		differ=1
		printf '%-22s DIFFERENT\n' "$1"
		diff -u --label "A/$2" --label "B/$2" "$a.masked" "$b.masked" | sed -n '3,$p' | excerpt || true
	fi
}

if [ -z "${OUTPUTS:-}" ]; then
	runs a
	runs b
fi
da=$(sha256sum <"$tmp/a/out/generate.ndjson" | cut -d' ' -f1)
db=$(sha256sum <"$tmp/b/out/generate.ndjson" | cut -d' ' -f1)
echo "generate: $(wc -l <"$tmp/a/out/generate.ndjson") payloads from A, $(wc -l <"$tmp/b/out/generate.ndjson") from B"
echo "  sha256 A $da"
echo "  sha256 B $db"
compare "generate (sha256)" generate.ndjson none
compare "validate text" validate.text none
compare "validate json" validate.json none
compare "check text" check.text check.text
compare "check text stderr" check.text.err check.text
compare "check junit" check.junit check.junit
compare "check json" check.json check.json
compare "check signed text" check.signed check.signed
compare "send json" send.json send.json
compare "send json stderr" send.json.err send.text
compare "send text" send.text send.text
compare "listen capture" capture.ndjson capture
for s in bash zsh fish powershell; do compare "completion $s" "completion.$s" none; done
compare "completion values" completion.values none
compare "man (roff)" man.roff none
compare "man (markdown)" man.markdown none
exit "$differ"

#!/usr/bin/env bash
# Compare two builds of whsim validate on 2,400 deterministic mutants of
# the fixtures (mutate.py: a field deleted, of the wrong type, null or
# extra; a bad enum value, date, number, UUID or envelope; a duplicate
# key, an escape, a truncation, bytes that break the JSON or its UTF-8),
# each as a file, as one NDJSON stream and as listen's capture records.
#   bench/validate/mutations.sh REF [REF2]   (REF2 default: the working tree)
#   PER=50 bench/validate/mutations.sh main  (50 mutants per fixture)
# Every run's stdout, stderr and exit status must be byte for byte the
# same: exit 0 when they are, 1 otherwise.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # build <ref or empty> <dir>
	mkdir -p "$2/src"
	if [ -z "$1" ]; then
		git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$2/src"
	else
		git archive "$1" | tar -x -C "$2/src"
	fi
	(cd "$2/src" && CGO_ENABLED=0 go build -trimpath -o "$2/whsim" ./cmd/whsim)
}
build "$1" "$tmp/a"
build "${2:-}" "$tmp/b"
python3 "$here/mutate.py" fixtures "$tmp/in" "${PER:-300}" >"$tmp/count"
echo "$(cat "$tmp/count") mutants of $(ls fixtures/*.json | wc -l) fixtures; A = $1, B = ${2:-the working tree}"

# run <build> <name> <args...>: stdout, stderr and exit status of one run.
run() {
	local bin=$tmp/$1/whsim name=$2
	shift 2
	"$bin" validate "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" && echo 0 >"$tmp/$name.rc" || echo $? >"$tmp/$name.rc"
}
cd "$tmp/in"
status=0
i=0
for args in "files/*.json" "--output json files/*.json" "--strict files/*.json" \
	"payloads.ndjson" "--output json payloads.ndjson" "--strict --output json payloads.ndjson" \
	"--shape sample payloads.ndjson" "--event CREATE_RECEIVABLE_DOC payloads.ndjson" \
	"captures.ndjson" "--output json captures.ndjson" "--strict --output json captures.ndjson" \
	"--ignore missing-field,unknown-field --output json captures.ndjson" "--output junit captures.ndjson"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # the arguments are split, and files/* expanded, on purpose
	run a "a$i" $args
	# shellcheck disable=SC2086
	run b "b$i" $args
	if cmp -s "$tmp/a$i.out" "$tmp/b$i.out" && cmp -s "$tmp/a$i.err" "$tmp/b$i.err" && cmp -s "$tmp/a$i.rc" "$tmp/b$i.rc"; then
		printf 'same       validate %s (exit %s, %s lines)\n' "$args" "$(cat "$tmp/a$i.rc")" "$(wc -l <"$tmp/a$i.out")"
	else
		status=1
		printf 'DIFFERENT  validate %s\n' "$args"
		diff "$tmp/a$i.out" "$tmp/b$i.out" | head -5 || true
		diff "$tmp/a$i.err" "$tmp/b$i.err" | head -5 || true
		diff "$tmp/a$i.rc" "$tmp/b$i.rc" || true
	fi
done
exit $status

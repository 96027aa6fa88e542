#!/usr/bin/env bash
# Start-up cost: `whsim --version` against a hello-world Go binary, whole
# process, interleaved so that machine drift hits both alike. Prints the
# median wall time of each and the ratio (target: at most 2x, #35).
# RUNS=n sets the number of runs of each (default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/whsim" ./cmd/whsim
mkdir "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$tmp/hello/go.mod"
(cd "$tmp/hello" && go build -o "$tmp/hello-bin" .)

go run ./bench/startcmp -n "$runs" "$tmp/whsim --version" "$tmp/hello-bin"
echo "target: A/B at most 2x (#35)"

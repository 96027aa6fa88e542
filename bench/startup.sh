#!/usr/bin/env bash
# Start-up cost: `whsim --version` against a hello-world Go binary, whole
# process, interleaved so that machine drift hits both alike. Prints the
# median wall time of each and the ratio (target: at most 2x, #35).
#
# Two figures, so that neither flatters: first whsim as released, built
# with .goreleaser.yaml's flags (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"
# and the version stamped in), against hello built the same way: that is
# the #35 figure, what users run. Then both as a plain `go build` (cgo on,
# not stripped, the version read from the build info), what `go install`
# or a contributor's build gives.
# RUNS=n sets the number of runs of each (default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$tmp/hello/go.mod"

# As released: the flags and -X stamps of .goreleaser.yaml's build.
stamp="-X main.version=v0.0.0-bench -X main.commit=$(git rev-parse --short HEAD 2>/dev/null || echo none) -X main.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $stamp" -o "$tmp/whsim-release" ./cmd/whsim
(cd "$tmp/hello" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/hello-release" .)
# Plain: go build's defaults.
go build -o "$tmp/whsim-plain" ./cmd/whsim
(cd "$tmp/hello" && go build -o "$tmp/hello-plain" .)

echo "== as released (CGO_ENABLED=0 -trimpath -s -w), the #35 figure"
go run ./bench/startcmp -n "$runs" "$tmp/whsim-release --version" "$tmp/hello-release"
echo "== plain go build (cgo on, not stripped)"
go run ./bench/startcmp -n "$runs" "$tmp/whsim-plain --version" "$tmp/hello-plain"
echo "target: the released A/B at most 2x (#35)"

#!/usr/bin/env bash
# Known vulnerabilities that whsim's code reaches, in its modules and the
# standard library of the Go that runs this (govulncheck, call-graph mode).
# vuln.go.dev cannot be reached from every machine, so the database is built
# from the golang.org/x/vulndb module (the same reports, from the module
# proxy) with its own indexdb tool, into a directory kept between runs.
# Pinned, so that a run says what that database knew; move VULNDB forward
# (go list -m -versions does not list pseudo-versions: take the newest the
# proxy serves) to learn of newer reports. Exit status: govulncheck's (3
# when a vulnerability is reached). Not part of CI (.ci/run): the standard
# library's findings depend on the machine's Go, not on a change.
set -euo pipefail
cd "$(dirname "$0")/.."
# The standard library looked at is that of go.mod's toolchain line, which
# builds the releases; GOTOOLCHAIN=go1.26.8 looks at that Go's instead.
export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
vuln=v1.9.0
vulndb=${VULNDB:-v0.0.0-20261105234957-e22db6528018}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/whsim-vulndb/$vulndb

# Built by the Go that builds whsim: govulncheck reads the source with its
# own go/types, which refuses what a newer Go's packages use (x/net's
# go1.27 files, "file requires newer Go version").
bin=${XDG_CACHE_HOME:-$HOME/.cache}/whsim-vulndb/bin/$(go env GOVERSION)
if ! "$bin/govulncheck" -version 2>/dev/null | grep -q "govulncheck@$vuln"; then
  GOBIN=$bin go install "golang.org/x/vuln/cmd/govulncheck@$vuln"
fi
if [ ! -f "$cache/index/db.json" ]; then
  src=$(GOFLAGS=-mod=mod go mod download -json "golang.org/x/vulndb@$vulndb" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$src" ] || { echo "govulncheck.sh: golang.org/x/vulndb@$vulndb: not downloaded" >&2; exit 2; }
  rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
  (cd "$src" && GOFLAGS=-mod=mod go run ./cmd/indexdb -vulns data/osv -out "$cache.tmp")
  rm -rf "$cache" && mv "$cache.tmp" "$cache"
fi
go version
exec "$bin/govulncheck" -db "file://$cache" "$@" ./...

#!/usr/bin/env bash
# Release dry run: check .goreleaser.yaml and build every target, archives
# and checksums into dist/ as a snapshot (nothing is published), then the
# container image from the linux binaries into dist/oci (scripts/oci-image.sh:
# goreleaser's own image support needs Docker, and its global after-hooks are
# not in the open-source edition). Not part of
# CI (.ci/run): installing goreleaser and building six targets takes minutes.
# Arguments go to `goreleaser release`, e.g. --parallelism 1.
set -euo pipefail
cd "$(dirname "$0")/.."
# The release is built with go.mod's toolchain line (Go 1.27.3: Go 1.26.8's
# standard library has known vulnerabilities, docs/maintainers.md), fetched
# once, whatever go env's GOTOOLCHAIN says.
export GOTOOLCHAIN=auto

# Pinned so that every run builds the same way. v2.15.1 is the newest that
# builds with Go 1.26 from the module proxy alone: from v2.16 goreleaser
# needs nfpm's MSIX support, whose module (go.digitalxero.dev/go-msix) the
# proxy does not serve, and later ones need a newer Go.
version=v2.15.1

bin=$(go env GOBIN)
[ -n "$bin" ] || bin=$(go env GOPATH)/bin
goreleaser=$bin/goreleaser
if ! "$goreleaser" --version 2>/dev/null | grep -q "GitVersion: *${version}\$"; then
  echo "installing goreleaser $version into $bin (a few minutes)" >&2
  go install "github.com/goreleaser/goreleaser/v2@$version"
fi

"$goreleaser" check
"$goreleaser" release --snapshot --clean "$@"
GORELEASER_DIST=dist bash scripts/oci-image.sh dist/oci

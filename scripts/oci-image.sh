#!/usr/bin/env bash
# Build whsim's container image as an OCI image layout in OUT (default
# dist/oci): linux/amd64 and linux/arm64 under one index, no Docker needed.
# It cross-builds the two static binaries with the flags .goreleaser.yaml
# uses, then writes the layout with scripts/ociimage (see there for what
# the image holds). scripts/goreleaser.sh runs it after a release build.
#
#   scripts/oci-image.sh [OUT]
#
# The labels come from the environment, else from git:
#   VERSION   (default: git describe, without a leading v)
#   REVISION  (default: the commit)
#   CREATED   (default: the commit's time; also every file's mtime, so that
#              the same commit gives the same digests)
#   CA_FILE   (default /etc/ssl/certs/ca-certificates.crt)
#   GORELEASER_DIST=dist: after goreleaser, take its linux binaries and its
#             dist/metadata.json (version, commit, date) instead of building.
#   WHSIM_OCI_BIN_DIR: a directory that already holds linux_amd64/whsim and
#             linux_arm64/whsim (skips the builds; the tests use it).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-dist/oci}
labels=()
bins=${WHSIM_OCI_BIN_DIR:-}
if [ -n "${GORELEASER_DIST:-}" ]; then
  # goreleaser names the build directories by target: whsim_linux_amd64_v1,
  # whsim_linux_arm64_v8.0 (the suffix varies with the GOAMD64/GOARM64 level).
  bins=$(mktemp -d)
  trap 'rm -rf "$bins"' EXIT
  for arch in amd64 arm64; do
    set -- "$GORELEASER_DIST"/whsim_linux_"$arch"*/whsim
    if [ $# -ne 1 ] || [ ! -f "$1" ]; then
      echo "oci-image: want one $GORELEASER_DIST/whsim_linux_${arch}*/whsim, found: $*" >&2
      exit 2
    fi
    mkdir -p "$bins/linux_$arch"
    cp "$1" "$bins/linux_$arch/whsim"
  done
  labels=(--goreleaser-metadata "$GORELEASER_DIST/metadata.json")
  version="(the release's version)"
else
  version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
  version=${version#v}
  commit=${REVISION:-$(git rev-parse HEAD)}
  date=${CREATED:-$(TZ=UTC git log -1 --date=iso-strict-local --format=%cd)}
  labels=(--version "$version" --revision "$commit" --created "$date")
  if [ -z "$bins" ]; then
    bins=$(mktemp -d)
    trap 'rm -rf "$bins"' EXIT
    # The flags of .goreleaser.yaml's build, so that the binaries match the
    # release archives' for the same version, commit and date.
    for arch in amd64 arm64; do
      CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
        -ldflags "-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date" \
        -o "$bins/linux_$arch/whsim" ./cmd/whsim
    done
  fi
fi

go run ./scripts/ociimage --out "$out" --ca-file "${CA_FILE:-/etc/ssl/certs/ca-certificates.crt}" \
  --binary "linux/amd64=$bins/linux_amd64/whsim" --binary "linux/arm64=$bins/linux_arm64/whsim" \
  "${labels[@]}"
echo "wrote the OCI image layout $out: whsim $version for linux/amd64 and linux/arm64" >&2

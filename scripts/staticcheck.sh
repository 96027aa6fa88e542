#!/usr/bin/env bash
# staticcheck over the module, pinned: the mistakes go vet leaves (a value
# assigned and never read, an error checked in the wrong scope, a
# deprecated API). A deliberate use says why where it is
# (//lint:ignore or //lint:file-ignore). CI runs it (.ci/run).
#   bash scripts/staticcheck.sh ./...
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
version=v0.8.2
# Built by the Go that builds whsim: staticcheck reads the source with its
# own go/types, which must know that Go's language and standard library.
bin=${XDG_CACHE_HOME:-$HOME/.cache}/whsim-staticcheck/$version/$(go env GOVERSION)
if [ ! -x "$bin/staticcheck" ]; then
  GOBIN=$bin go install "honnef.co/go/tools/cmd/staticcheck@$version"
fi
exec "$bin/staticcheck" "${@:-./...}"

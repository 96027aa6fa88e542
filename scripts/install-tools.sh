#!/usr/bin/env bash
# Installs the peer and engine tools that the browser tests, the engine
# integration tests and the bench/ scripts use, at pinned versions, each only
# when it is missing. With no arguments: everything; else only the named ones
# (chromium wrk hey vegeta k6 sqlite3 xmllint curl bash-completion fish npm-validators python-jsonschema java). Needs root for apt-get (CI and the
# development machines run as root) and the Go toolchain for vegeta and k6.
#
#   scripts/install-tools.sh                 # all of them
#   scripts/install-tools.sh chromium vegeta k6 sqlite3 xmllint curl bash-completion fish npm-validators python-jsonschema java # what CI needs
set -euo pipefail

vegeta_version=v12.13.0
k6_version=v1.8.1
# The npm validators the schema tests run on whsim schema's OpenAPI and
# AsyncAPI documents (@redocly/cli, @readme/openapi-parser, @asyncapi/parser,
# Ajv), openapi-typescript and TypeScript (tsc), which the code generation
# test runs, and axe-core, which the browser tests run over the HTML reports,
# pinned with their whole tree by scripts/npm-validators' lock file and
# installed with npm ci into .tools/npm (gitignored), where the tests look,
# or $WHSIM_NPM_TOOLS.
npm_validators=$(cd "$(dirname "$0")" && pwd)/npm-validators

tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(chromium wrk hey vegeta k6 sqlite3 xmllint curl bash-completion fish npm-validators python-jsonschema java)

gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin=$(go env GOPATH)/bin

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then
    apt-get update -qq >/dev/null
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

for t in "${tools[@]}"; do
  case "$t" in
    chromium)
      command -v chromium >/dev/null || { echo "installing chromium (Debian package)" >&2; apt_install chromium; }
      # A Simplified Chinese font: the inspector's font test checks the page
      # draws Chinese with one (it skips where there is none), and the
      # README's screenshots show the bodies' Chinese.
      [ -n "$(fc-list :lang=zh-cn family 2>/dev/null)" ] || { echo "installing fonts-noto-cjk (Debian package)" >&2; apt_install fonts-noto-cjk; } ;;
    sqlite3)
      # Debian's sqlite3 client: the --probe-cmd end-to-end test asks it about
      # the database its receiver writes.
      command -v sqlite3 >/dev/null || { echo "installing sqlite3 (Debian package)" >&2; apt_install sqlite3; } ;;
    xmllint)
      # Debian's libxml2-utils: the JUnit tests validate whsim's reports
      # against the CI servers' schemas in testdata/junit with it.
      command -v xmllint >/dev/null || { echo "installing xmllint (Debian package libxml2-utils)" >&2; apt_install libxml2-utils; } ;;
    curl)
      # Debian's curl: the inspector's copy-as-curl tests run the command it
      # copies, as a user pastes it, against a test receiver.
      command -v curl >/dev/null || { echo "installing curl (Debian package)" >&2; apt_install curl; } ;;
    bash-completion)
      # Debian's bash-completion: the committed bash completion script builds
      # on it, and its end-to-end test (completion_bash.txtar) runs the script
      # in bash as a user's shell does; without it that test skips.
      [ -f /usr/share/bash-completion/bash_completion ] || { echo "installing bash-completion (Debian package)" >&2; apt_install bash-completion; } ;;
    fish)
      # Debian's fish: the end-to-end test of the committed fish script
      # (completion_fish.txtar) runs it in fish; without it that test skips.
      command -v fish >/dev/null || { echo "installing fish (Debian package)" >&2; apt_install fish; } ;;
    python-jsonschema)
      # Python's jsonschema, which the schema agreement test runs over its
      # corpus (its re.search lets $ match before a final newline): Debian's
      # python3-jsonschema (4.10.3 on bookworm) for /usr/bin/python3, unless
      # the python3 on PATH or that one imports it already.
      if ! python3 -c 'import jsonschema' 2>/dev/null && ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
        echo "installing python3-jsonschema (Debian package)" >&2; apt_install python3-jsonschema
      fi ;;
    java)
      # A JDK (11 or later runs a single-file program from source): the
      # schema test runs the exported patterns through java.util.regex,
      # whose $ also matches before a final line break.
      command -v java >/dev/null || { echo "installing java (Debian package default-jdk-headless)" >&2; apt_install default-jdk-headless; } ;;
    wrk | hey)
      command -v "$t" >/dev/null || { echo "installing $t (Debian package)" >&2; apt_install "$t"; } ;;
    vegeta)
      # go install leaves vegeta's own -version empty: ask the binary's module.
      if ! go version -m "$gobin/vegeta" 2>/dev/null | grep -q "vegeta/v12[[:space:]]*${vegeta_version}"; then
        echo "installing vegeta $vegeta_version into $gobin" >&2
        go install "github.com/tsenart/vegeta/v12@$vegeta_version"
      fi ;;
    k6)
      if ! "$gobin/k6" version 2>/dev/null | grep -q "${k6_version}"; then
        echo "installing k6 $k6_version into $gobin (builds from source: a few minutes)" >&2
        go install "go.k6.io/k6@$k6_version"
      fi ;;
    npm-validators)
      dir=${WHSIM_NPM_TOOLS:-$(cd "$(dirname "$0")/.." && pwd)/.tools/npm}
      want=$(cat "$npm_validators/package-lock.json" | cksum)
      # Node and npm from Debian when the machine has none, so that a fresh
      # CI machine runs these tests instead of skipping them.
      command -v npm >/dev/null || { echo "installing nodejs and npm (Debian packages)" >&2; apt_install nodejs npm; }
      if [ "$(cat "$dir/installed" 2>/dev/null)" != "$want" ] || [ ! -d "$dir/node_modules/@redocly/cli" ]; then
        echo "installing the npm validators ($npm_validators/package.json) into $dir" >&2
        mkdir -p "$dir"
        cp "$npm_validators/package.json" "$npm_validators/package-lock.json" "$dir/"
        npm ci --silent --no-audit --no-fund --prefix "$dir" >/dev/null
        echo "$want" >"$dir/installed"
      fi ;;
    *) echo "install-tools: unknown tool $t (chromium wrk hey vegeta k6 sqlite3 xmllint curl bash-completion fish npm-validators python-jsonschema java)" >&2; exit 2 ;;
  esac
done

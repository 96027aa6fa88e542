#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml), kept here so that a test
# runs them as a runner would (cmd/whsim/action_test.go).
#
#   action.sh install   downloads whsim's release archive for the runner
#                       (RUNNER_OS, RUNNER_ARCH) and the checksums file,
#                       verifies the archive's sha256, refuses a mismatch,
#                       unpacks whsim and adds it to GITHUB_PATH; outputs
#                       whsim-path and version.
#   action.sh run       runs whsim with INPUT_ARGS in INPUT_WORKING_DIRECTORY
#                       and passes its exit code on; outputs exit-code (2,
#                       without running, when the install failed: WHSIM is
#                       empty, or the directory is not there).
#
# Inputs come as INPUT_VERSION, INPUT_DOWNLOAD_BASE, INPUT_ARGS,
# INPUT_WORKING_DIRECTORY; outputs go
# to GITHUB_OUTPUT. Messages go to stderr as workflow commands (::error::)
# so the run page shows them on the step. Exit 2 when the action could not
# install or run whsim, as whsim's own "could not run".
set -euo pipefail

fail() {
  # A workflow command is one line: %, CR and LF in the message are
  # escaped as the runner unescapes them, so a message quoting the inputs
  # stays one annotation and no line of an input is read as a command.
  local msg="$*"
  msg=${msg//'%'/%25}
  msg=${msg//$'\r'/%0D}
  msg=${msg//$'\n'/%0A}
  echo "::error title=whsim action::$msg" >&2
  exit 2
}

output() { # name value
  echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: not running as a GitHub Actions step}"
}

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "neither sha256sum nor shasum is on PATH: cannot verify the download"
  fi
}

# shell_words TEXT writes the words of TEXT, each ended by NUL, with quotes
# and backslashes read as a shell reads them: blanks and newlines (and a
# CR, from a workflow saved with CRLF) part words; '...' keeps all it
# holds; "..." keeps all but \ before $ ` " \ or a newline; \ outside
# quotes keeps the next character; \ and a newline join lines (args: |
# written like a script). Nothing else is special: $VAR, $(...), globs,
# | ; > & and # stay text, so a value that reached args from an event (a
# branch name, a title) cannot run commands. xargs, used before, knew no
# \ inside quotes ("X: \"v\"" was refused) nor a quote over two lines.
# Returns 1 on a quote left open.
shell_words() {
  local s=$1 word='' in_word=0 quote='' c next i n=${#1}
  for ((i = 0; i < n; i++)); do
    c=${s:i:1} next=${s:i+1:1}
    case $quote in
    "'")
      if [ "$c" = "'" ]; then quote=''; else word+=$c; fi
      ;;
    '"')
      if [ "$c" = '"' ]; then
        quote=''
      elif [ "$c" = '\' ] && [ "$next" = $'\n' ]; then
        i=$((i + 1))
      elif [ "$c" = '\' ] && [ -n "$next" ] && [[ '$`"\' == *"$next"* ]]; then
        word+=$next i=$((i + 1))
      else
        word+=$c
      fi
      ;;
    *)
      case $c in
      ' ' | $'\t' | $'\n' | $'\r')
        if ((in_word)); then printf '%s\0' "$word"; fi
        word='' in_word=0
        ;;
      "'" | '"') quote=$c in_word=1 ;;
      '\')
        if [ "$next" = $'\n' ]; then
          i=$((i + 1))
        elif [ "$next" = $'\r' ] && [ "${s:i+2:1}" = $'\n' ]; then
          i=$((i + 2))
        elif [ -n "$next" ]; then
          word+=$next in_word=1 i=$((i + 1))
        else
          word+=$c in_word=1
        fi
        ;;
      *) word+=$c in_word=1 ;;
      esac
      ;;
    esac
  done
  [ -z "$quote" ] || return 1
  if ((in_word)); then printf '%s\0' "$word"; fi
}

install() {
  local version=${INPUT_VERSION:-}
  version=${version#v}
  [ -n "$version" ] || fail "input version is empty: name a release, e.g. 0.3.0"
  # A release version, nothing else: it names a directory the step empties.
  if ! [[ $version =~ ^[0-9]+(\.[0-9]+)*([-+][0-9A-Za-z.+-]+)?$ ]]; then
    fail "input version \"$version\": want a release version such as 0.3.0"
  fi
  local base=${INPUT_DOWNLOAD_BASE:-https://github.com/whsim/whsim/releases/download}
  base=${base%/}

  # The names .goreleaser.yaml gives: {{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}
  # (.zip on Windows) and {{ .ProjectName }}_{{ .Version }}_checksums.txt.
  local os arch ext=tar.gz exe=whsim
  case ${RUNNER_OS:-} in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ext=zip exe=whsim.exe ;;
  *) fail "RUNNER_OS \"${RUNNER_OS:-}\": whsim is released for Linux, macOS and Windows" ;;
  esac
  case ${RUNNER_ARCH:-} in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) fail "RUNNER_ARCH \"${RUNNER_ARCH:-}\": whsim is released for X64 (amd64) and ARM64" ;;
  esac
  local archive="whsim_${version}_${os}_${arch}.${ext}" sums="whsim_${version}_checksums.txt"

  local dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/whsim-action/$version"
  rm -rf "$dir"
  mkdir -p "$dir/bin"
  local url
  for f in "$sums" "$archive"; do
    url="$base/v$version/$f"
    curl -fsSL --retry 3 --proto '=https,http' -o "$dir/$f" "$url" || fail "download $url failed"
  done

  local want got
  want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dir/$sums")
  [ -n "$want" ] || fail "$sums does not list $archive"
  got=$(sha256 "$dir/$archive")
  if [ "$got" != "$want" ]; then
    rm -f "$dir/$archive"
    fail "$archive: sha256 $got, but $sums says $want; refusing it (a damaged or tampered download)"
  fi

  case $ext in
  tar.gz) tar -xzf "$dir/$archive" -C "$dir/bin" "$exe" ;;
  zip) unzip -q -o "$dir/$archive" "$exe" -d "$dir/bin" ;;
  esac || fail "$archive holds no $exe"
  chmod +x "$dir/bin/$exe"

  echo "$dir/bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set: not running as a GitHub Actions step}"
  output whsim-path "$dir/bin/$exe"
  output version "$version"
  echo "installed $("$dir/bin/$exe" version) ($archive, sha256 verified)" >&2
}

# refuse is fail for the run step: args that name no command whsim can
# run are "could not run the test", and the exit-code output says so (2)
# as the step's exit does, rather than staying empty, neither a pass nor a
# failure to a workflow that reads it with continue-on-error.
refuse() {
  output exit-code 2
  fail "$@"
}

run() {
  # The step runs after a failed install too (action.yml), to say so in
  # exit-code: WHSIM, the install's whsim-path output, is then empty.
  local whsim=${WHSIM:-}
  [ -n "$whsim" ] && [ -x "$whsim" ] || refuse "whsim was not installed (the install step failed, saying why): args not run"
  # Relative to the workspace, where the step starts, as a step's own
  # working-directory is.
  local wd=${INPUT_WORKING_DIRECTORY:-.}
  [ -d "$wd" ] || refuse "input working-directory \"$wd\": no such directory"
  cd -- "$wd" || refuse "input working-directory \"$wd\": cannot change to it"
  [ -n "${INPUT_ARGS//[[:space:]]/}" ] || refuse "input args is empty: nothing to run"
  local words a
  words=$(mktemp)
  shell_words "${INPUT_ARGS:-}" >"$words" || {
    rm -f "$words"
    refuse "input args: unbalanced quotes in: ${INPUT_ARGS:-}"
  }
  local args=()
  while IFS= read -r -d '' a; do args+=("$a"); done <"$words"
  rm -f "$words"
  # args is whsim's command line; a leading "whsim" (no command has that
  # name) is taken as the program's own name.
  if [ ${#args[@]} -gt 0 ] && [ "${args[0]}" = whsim ]; then args=("${args[@]:1}"); fi
  [ ${#args[@]} -gt 0 ] || refuse "input args holds only \"whsim\": name a command, e.g. check --url <url>"

  local code=0
  "$whsim" "${args[@]}" || code=$?
  output exit-code "$code"
  exit "$code"
}

case ${1:-} in
install) install ;;
run) run ;;
*)
  echo "usage: action.sh install|run" >&2
  exit 2
  ;;
esac

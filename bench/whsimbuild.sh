# Sourced by the bench scripts (sh and bash): whsim_build OUT builds
# ./cmd/whsim as users run it, with .goreleaser.yaml's build settings
# (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"): a static binary, which the
# dynamic loader does not start. Figures that carry whsim's start-up
# (validate of a file, send --count) depend on it: on the 2-core machine a
# plain `go build` (cgo on, dynamically linked, not stripped) took some 70
# more page faults to start. PLAIN=1 builds the plain way instead, what
# `go install` or a contributor's build gives; the script prints which.
whsim_build() {
	if [ "${PLAIN:-}" = 1 ]; then
		echo "whsim: a plain go build (PLAIN=1: cgo on, dynamically linked)" >&2
		go build -o "$1" ./cmd/whsim
	else
		echo "whsim: built as released (CGO_ENABLED=0 -trimpath -ldflags '-s -w'; PLAIN=1 for a plain go build)" >&2
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" ./cmd/whsim
	fi
}

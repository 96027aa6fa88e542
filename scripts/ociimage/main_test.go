package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBinaryFlag(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		variant string
	}{
		{[]string{"linux/amd64=bin/a"}, "", ""},
		{[]string{"linux/arm64=bin/b"}, "", "v8"},
		{[]string{"linux/amd64"}, "want linux/amd64=<path>", ""},
		{[]string{"linux/amd64="}, "want linux/amd64=<path>", ""},
		{[]string{"darwin/arm64=x"}, "want linux/amd64=<path>", ""},
		{[]string{"linux/386=x"}, "want linux/amd64=<path>", ""},
		{[]string{"linux/amd64=a", "linux/amd64=b"}, "linux/amd64 given twice", ""},
	}
	for _, tt := range tests {
		var b binaryFlags
		var err error
		for _, a := range tt.args {
			if err = b.Set(a); err != nil {
				break
			}
		}
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: error %v, want %q", tt.args, err, tt.wantErr)
		case tt.wantErr == "" && b[0].Variant != tt.variant:
			t.Errorf("%q: variant %q, want %q", tt.args, b[0].Variant, tt.variant)
		}
	}
}

func TestCheckELF(t *testing.T) {
	elf := func(machine byte) []byte {
		b := make([]byte, 64)
		copy(b, "\x7fELF")
		b[18] = machine
		return b
	}
	tests := []struct {
		bin  []byte
		arch string
		ok   bool
	}{
		{elf(62), "amd64", true},
		{elf(183), "arm64", true},
		{elf(62), "arm64", false},
		{elf(183), "amd64", false},
		{[]byte("#!/bin/sh\necho hi\n"), "amd64", false},
		{nil, "amd64", false},
	}
	for i, tt := range tests {
		if err := checkELF(tt.bin, tt.arch); (err == nil) != tt.ok {
			t.Errorf("%d (%s): %v, want ok=%v", i, tt.arch, err, tt.ok)
		}
	}
}

// TestRootfsDeterministic: the same inputs give the same layer bytes, so
// a rebuild of a release gives the same digests; a different binary or
// time does not.
func TestRootfsDeterministic(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, idA, err := rootfs([]byte("bin"), []byte("ca"), at)
	if err != nil {
		t.Fatal(err)
	}
	b, idB, _ := rootfs([]byte("bin"), []byte("ca"), at)
	if !bytes.Equal(a, b) || idA != idB {
		t.Error("two layers from the same inputs differ")
	}
	if _, id, _ := rootfs([]byte("bin2"), []byte("ca"), at); id == idA {
		t.Error("another binary gave the same diff id")
	}
	if _, id, _ := rootfs([]byte("bin"), []byte("ca"), at.Add(time.Second)); id == idA {
		t.Error("another time gave the same diff id")
	}
}

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644)
	bin := filepath.Join(dir, "whsim")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	full := func(extra ...string) []string {
		return append([]string{"--out", filepath.Join(dir, "out"), "--ca-file", ca, "--version", "1", "--revision", "r", "--created", "2026-01-02T03:04:05Z"}, extra...)
	}
	notEmpty := filepath.Join(dir, "full")
	os.MkdirAll(filepath.Join(notEmpty, "blobs"), 0o755)
	tests := []struct {
		args []string
		want string
	}{
		{full(), "--binary: missing"},
		{full("--binary", "linux/amd64="+bin), "not an ELF binary"},
		{[]string{"--out", "x", "--binary", "linux/amd64=" + bin}, "--version, --revision and --created are all needed"},
		{full("--binary", "linux/amd64="+bin, "--created", "yesterday"), "--created"},
		{full("--binary", "linux/amd64="+bin, "--ca-file", bin), "no PEM certificate"},
		{full("--binary", "linux/amd64="+bin, "--out", notEmpty), "exists and is not empty"},
		{full("--binary", "linux/amd64="+bin, "--goreleaser-metadata", filepath.Join(dir, "none.json")), "--goreleaser-metadata"},
		{full("stray"), `unexpected argument "stray"`},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		err := run(tt.args, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}

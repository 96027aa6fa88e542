package ready

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listening returns the URL of a socket that accepts connections, and one
// of port 1, where nothing listens (a port just closed may be another
// parallel test's by the time it is called).
func listening(t *testing.T) (up, down string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String() + "/", "http://127.0.0.1:1/"
}

func TestCheck(t *testing.T) {
	up, down := listening(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		path     string
		wantURL  string
		notReady string // a *NotReady containing this
		invalid  string // another error containing this
	}{
		{"up", write("up.url", up+"\n"), up, "", ""},
		{"up, no newline", write("up2.url", up), up, "", ""},
		{"missing file", filepath.Join(dir, "none.url"), "", "does not exist", ""},
		{"stale file", write("down.url", down+"\n"), "", "does not accept connections", ""},
		{"not a URL", write("junk.url", "hello\n"), "", "", `want the http:// URL a --ready-file holds, got "hello"`},
		{"empty", write("empty.url", ""), "", "", "want the http:// URL"},
		{"a directory", dir, "", "", "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(context.Background(), tt.path)
			var nr *NotReady
			switch {
			case tt.wantURL != "":
				if err != nil || got != tt.wantURL {
					t.Fatalf("Check = %q, %v; want %q", got, err, tt.wantURL)
				}
			case tt.notReady != "":
				if !errors.As(err, &nr) || !strings.Contains(err.Error(), tt.notReady) {
					t.Fatalf("Check error = %v (%T), want a NotReady with %q", err, err, tt.notReady)
				}
			default:
				if err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), tt.invalid) {
					t.Fatalf("Check error = %v (%T), want a non-NotReady error with %q", err, err, tt.invalid)
				}
			}
		})
	}
}

func TestWait(t *testing.T) {
	up, _ := listening(t)
	dir := t.TempDir()
	upFile := filepath.Join(dir, "up.url")
	if err := os.WriteFile(upFile, []byte(up+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.url")
	if err := os.WriteFile(junk, []byte("ftp://x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.url")

	if got, err := Wait(context.Background(), upFile, time.Minute, time.Millisecond); err != nil || got != up {
		t.Errorf("Wait(up) = %q, %v", got, err)
	}
	// A file that is not a ready file ends the wait at once: the minute is
	// never reached.
	var nr *NotReady
	if _, err := Wait(context.Background(), junk, time.Hour, time.Millisecond); err == nil || errors.As(err, &nr) {
		t.Errorf("Wait(junk) = %v, want an error that is not NotReady", err)
	}
	_, err := Wait(context.Background(), missing, 20*time.Millisecond, time.Millisecond)
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "not ready within 20ms: ") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Wait(missing) = %v, want NotReady within 20ms saying the file does not exist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Wait(ctx, missing, time.Hour, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(cancelled) = %v, want context.Canceled", err)
	}
}

// TestWaitSeesTheFileAppear: the file is written while Wait runs, as
// listen writes it after a script started waiting.
func TestWaitSeesTheFileAppear(t *testing.T) {
	up, _ := listening(t)
	p := filepath.Join(t.TempDir(), "late.url")
	done := make(chan error, 1)
	go func() {
		_, err := Wait(context.Background(), p, time.Minute, time.Millisecond)
		done <- err
	}()
	// Written as listen writes it (atomically): os.WriteFile would let
	// Wait read the file empty, which is no ready file, and fail.
	withdraw, err := Announce(context.Background(), p, up)
	if err != nil {
		t.Fatal(err)
	}
	defer withdraw()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWaitLooksPastItsDeadline: a server that is up is ready, however
// long a loaded machine holds the wait past its bound before it looks (a
// dial whose deadline is past fails before it tries: the server was "not
// ready within" the bound, "nothing answered", without being asked). A
// bound already past when Wait starts stands in for the held goroutine.
func TestWaitLooksPastItsDeadline(t *testing.T) {
	up, _ := listening(t)
	p := filepath.Join(t.TempDir(), "up.url")
	if err := os.WriteFile(p, []byte(up+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Wait(context.Background(), p, time.Nanosecond, time.Millisecond); err != nil || got != up {
		t.Errorf("Wait = %q, %v; want %s", got, err, up)
	}
}

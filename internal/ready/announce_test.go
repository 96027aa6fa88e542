package ready

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAnnounce(t *testing.T) {
	const u = "http://127.0.0.1:4040/?token=abc"
	tests := []struct {
		name string
		// end ends the run: cancel stops the server's context, withdraw
		// is the command returning.
		end func(cancel, withdraw func())
		// rewrite, when set, is what another server writes to the file
		// before the run ends.
		rewrite  string
		wantGone bool
	}{
		{name: "stopped (Ctrl-C)", end: func(cancel, _ func()) { cancel() }, wantGone: true},
		{name: "returned before a stop", end: func(_, withdraw func()) { withdraw() }, wantGone: true},
		{name: "stopped, then returned", end: func(cancel, withdraw func()) { cancel(); withdraw() }, wantGone: true},
		{name: "another server's file since", rewrite: "http://127.0.0.1:9/\n", end: func(cancel, withdraw func()) { cancel(); withdraw() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ready.url")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			withdraw, err := Announce(ctx, path, u)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != u+"\n" {
				t.Fatalf("the ready file holds %q, %v; want %q", b, err, u+"\n")
			}
			if tt.rewrite != "" {
				if err := os.WriteFile(path, []byte(tt.rewrite), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			tt.end(cancel, withdraw)
			if !tt.wantGone {
				if b, err := os.ReadFile(path); err != nil || string(b) != tt.rewrite {
					t.Fatalf("the other server's file holds %q, %v; want it left as %q", b, err, tt.rewrite)
				}
				return
			}
			if !removed(path) {
				t.Fatalf("%s is still there after the run ended", path)
			}
		})
	}
}

// removed waits for the file to be gone: the removal after a stop runs on
// its own goroutine. The bound is on a wait for an event, generous for a
// loaded machine; a file that stays fails.
func removed(path string) bool {
	end := time.Now().Add(30 * time.Second)
	for {
		_, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnnounceUnwritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "ready.url")
	if _, err := Announce(context.Background(), path, "http://127.0.0.1:1/"); err == nil {
		t.Fatal("Announce into a missing directory: no error")
	}
}

// A ready file is removed at the stop: one that is a link or a device is
// refused before it is written, never replaced, then taken away.
func TestAnnounceNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.url"), filepath.Join(dir, "link.url")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	for _, path := range []string{link, dir} {
		withdraw, err := Announce(context.Background(), path, "http://127.0.0.1:1/")
		if err == nil {
			withdraw()
			t.Errorf("Announce(%s): no error", path)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone or replaced: %v %v", fi, err)
	}
}

package ctxio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReaderReadsThenGivesWay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := io.ReadAll(NewReader(ctx, strings.NewReader("abc")))
	if err != nil || string(b) != "abc" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
	pr, pw := io.Pipe() // nobody writes
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(NewReader(ctx, pr))
		done <- err
	}()
	cancel()
	wantGiveWay(t, done, context.Canceled)
}

// wantGiveWay waits for a blocked read's end, which must be want, the
// context's error.
func wantGiveWay(t *testing.T, done <-chan error, want error) {
	t.Helper()
	select {
	case err := <-done:
		if !errors.Is(err, want) {
			t.Fatalf("read: %v, want %v", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not give way to the context")
	}
}

func TestCheckedGivesWayBetweenReads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Checked(ctx, strings.NewReader("abcdef"))
	p := make([]byte, 3)
	if n, err := r.Read(p); n != 3 || err != nil || string(p) != "abc" {
		t.Fatalf("Read = %d %q, %v", n, p[:n], err)
	}
	cancel()
	if n, err := r.Read(p); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel = %d, %v; want 0, context.Canceled", n, err)
	}
}

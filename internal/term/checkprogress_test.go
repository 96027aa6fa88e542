package term

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// syncBuf is a buffer the progress line's ticker may write to while the
// test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The progress line: drawn on a terminal only, names the check and the
// case n of N, and is cleared before a case's line and at the end.
func TestCheckProgress(t *testing.T) {
	if p := NewCheckProgress(&syncBuf{}, false); p != nil {
		t.Fatal("a progress line off a terminal")
	}
	var out syncBuf
	p := NewCheckProgress(&out, true)
	p.Update("accepts-valid", 3, 19, "CREATE_RECEIVABLE_DOC/nulls")
	p.Clear()
	p.Stop()
	got := out.String()
	if !strings.Contains(got, "accepts-valid case 3 of 19 (CREATE_RECEIVABLE_DOC/nulls), ") {
		t.Errorf("progress %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("progress %q does not end cleared", got)
	}
}

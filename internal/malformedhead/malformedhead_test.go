package malformedhead

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Each head net/http's reader refuses is known refused, by the error
// net/http itself gives for it, wrapped as its transport wraps it; an
// answer it reads, and errors that are no refusal of a head (a reset, an
// answer cut short), are not.
func TestRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, head string
		refused    bool
	}{
		{"status not a number", "HTTP/1.1 2x0 OK\r\n\r\n", true},
		{"garbage", "garbage\r\n\r\n", true},
		{"no version", "HTP/1.1 200 OK\r\n\r\n", true},
		{"a header line with no colon", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", true},
		{"two Content-Lengths that differ", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", true},
		{"a bad Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", true},
		{"a clean answer", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"cut short after its status line", "HTTP/1.1 200 OK\r\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(tt.head)), nil)
			if err == nil {
				resp.Body.Close()
			}
			if tt.refused && err == nil {
				t.Fatalf("net/http read %q: the test tests nothing", tt.head)
			}
			wrapped := fmt.Errorf("Post %q: %w", "http://127.0.0.1/hook", fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err))
			if got := err != nil && Refused(wrapped); got != tt.refused {
				t.Errorf("Refused(%v) = %v, want %v", wrapped, got, tt.refused)
			}
		})
	}
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, errors.New("read tcp: connection reset by peer"), nil} {
		if Refused(err) {
			t.Errorf("Refused(%v) = true, want false", err)
		}
	}
}

// A head the connection's end cut is told from one whose whole lines
// net/http refuses, wherever the cut fell: in a line net/http reads as a
// whole one and refuses, or between lines.
func TestCutShort(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ head, where string }{
		{"HTTP/1.1 200 OK\r\nContent-Le", "in a header line"},
		{"HTTP/1.1 200 OK\r\nContent-Length", "in a header line"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r", "in a header line"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chun", "in a header line"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding:", "in a header line"},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding: CHUNKE", "in a header line"},
		{"HTTP/1.1 200 OK\r\nX: a\r\n ", "in a header line"},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A", "in a header line"},
		{"HTTP/1.1 2", "in the status line"},
		{"HTTP/1", "in the status line"},
		{"H", "in the status line"},
		{"HTTP/1.1 200 Everything is fine", "in the status line"},
		{"HTTP/1.1 200 OK\r\n", "before the end"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r", "before the end"},
		{"HTTP/1.1 100 Continue\r\n\r\n", "before the end"},
		// Not cut: whole, or refused whatever came after.
		{"HTTP/1.1 200 OK\r\n\r\n", ""},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", ""},
		{"HTTP/1.1 200 OK\r\nno colon here\r\nContent-Le", ""},
		{"HTTP/1.1 2x", ""},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzi", ""},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunkedx", ""},
		{"HTTP/1.1 2000", ""},
		{"garbage", ""},
		{"HTTP/1.1 100 Continue\r\n\r\nX-A", ""},
		{"\r", ""},
		{"", ""},
	} {
		where, ok := CutShort([]byte(tt.head))
		if where != tt.where || ok != (tt.where != "") {
			t.Errorf("CutShort(%q) = %q, %v; want %q", tt.head, where, ok, tt.where)
		}
	}
}

// A head CutShort says was cut is no head net/http reads whole, and the
// cut is in one of three places.
func FuzzCutShort(f *testing.F) {
	for _, s := range []string{"HTTP/1.1 200 OK\r\nContent-Le", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chun", "HTTP/1.1 2", "HTTP/1.1 200 OK\r\n\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head string) {
		where, ok := CutShort([]byte(head))
		if !ok {
			if where != "" {
				t.Fatalf("CutShort(%q) = %q, false", head, where)
			}
			return
		}
		switch where {
		case "in the status line", "in a header line", "before the end":
		default:
			t.Fatalf("CutShort(%q) = %q", head, where)
		}
		if final, _, _ := heads([]byte(head)); final {
			t.Fatalf("CutShort(%q) = %q, and net/http reads it whole", head, where)
		}
	})
}

package sendout

import (
	"bytes"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		done, failed, total int64
		el, dur             time.Duration
		want                string
	}{
		{250, 0, 1000, 5 * time.Second, 0, "[=======                     ]  250/1000  25%  50/s  ETA 15s"},
		{1000, 3, 1000, 10 * time.Second, 0, "[============================] 1000/1000 100%  100/s  ETA 0s  3 failed"},
		{30, 0, 0, 3 * time.Second, 12 * time.Second, "[=======                     ] 30 sent  25%  10/s  ETA 9s"},
		{42, 1, 0, 2 * time.Second, 0, "42 sent  21/s  1 failed"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.done, tt.failed, tt.total, tt.el, tt.dur); got != tt.want {
			t.Errorf("progressLine(%d, %d, %d, %s, %s) =\n%q, want\n%q", tt.done, tt.failed, tt.total, tt.el, tt.dur, got, tt.want)
		}
	}
}

func TestConsoleUnreachable(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("https://user:pw@127.0.0.1:1/hook")
	refused := attempt.Attempt{Kind: "connection refused", Err: "dial tcp: connection refused"}
	tlsBad := attempt.Attempt{Kind: attempt.KindTLS, Err: "tls: failed to verify certificate: x509: certificate signed by unknown authority"}
	tests := []struct {
		name     string
		attempts []attempt.Attempt
		want     string
	}{
		{"all refused", []attempt.Attempt{refused, refused}, "cannot reach https://user:xxxxx@127.0.0.1:1/hook: connection refused"},
		{"tls says why", []attempt.Attempt{tlsBad}, "cannot reach https://user:xxxxx@127.0.0.1:1/hook: tls: x509: certificate signed by unknown authority (--cacert <ca.pem> trusts a private CA, --insecure skips the check)"},
		{"the sender's own limit", []attempt.Attempt{{Kind: attempt.KindLocal, Err: `Post "x": dial tcp 127.0.0.1:1: socket: too many open files`}},
			"could not send to https://user:xxxxx@127.0.0.1:1/hook: local: socket: too many open files (a limit of this machine, not the receiver's failure)"},
		{"answers that are no HTTP say what they were", []attempt.Attempt{{Kind: attempt.KindOther, Err: `Post "https://user:xxxxx@127.0.0.1:1/hook": malformed HTTP status line "ok: \x1b[31m\n"`}},
			`every call to https://user:xxxxx@127.0.0.1:1/hook failed: malformed HTTP status line "ok: \x1b[31m\n"`},
		{"malformed answers say so, and what they were", []attempt.Attempt{{Kind: attempt.KindMalformed, Err: `Post "https://user:xxxxx@127.0.0.1:1/hook": malformed HTTP status code "999 \x1b[31m"`}},
			`every call to https://user:xxxxx@127.0.0.1:1/hook got a malformed answer (not valid HTTP): malformed HTTP status code "999 \x1b[31m"`},
		{"a slow receiver was reached: a timeout says both", []attempt.Attempt{{Kind: attempt.KindTimeout, Err: "timeout"}, {Kind: attempt.KindTimeout, Err: "timeout"}},
			"no answer from https://user:xxxxx@127.0.0.1:1/hook: every call timed out (a receiver slower than --timeout, or one that cannot be reached)"},
		{"calls that waited for an HTTP/2 stream the receiver did not allow say so", []attempt.Attempt{{Kind: attempt.KindTimeout, Err: `Post "https://user:xxxxx@127.0.0.1:1/hook": waited for a free HTTP/2 stream, the call never went out: the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)`}},
			"no answer from https://user:xxxxx@127.0.0.1:1/hook: every call timed out: waited for a free HTTP/2 stream, the call never went out: the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)"},
		{"connections taken and closed unanswered were reached", []attempt.Attempt{{Kind: attempt.KindClosed, Err: "EOF"}, {Kind: attempt.KindClosed, Err: "EOF"}},
			"no answer from https://user:xxxxx@127.0.0.1:1/hook: every call's connection was ended before an answer came (connection closed)"},
		{"connections reset unanswered were reached", []attempt.Attempt{{Kind: attempt.KindReset, Err: "read: connection reset by peer"}},
			"no answer from https://user:xxxxx@127.0.0.1:1/hook: every call's connection was ended before an answer came (connection reset)"},
		{"some answered", []attempt.Attempt{refused, {Status: 503}}, ""},
		{"two kinds", []attempt.Attempt{refused, {Kind: attempt.KindTimeout, Err: "timeout"}}, ""},
		{"none failed", []attempt.Attempt{{Status: 200}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewConsole(ConsoleOptions{Format: term.JSON, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
			if err != nil {
				t.Fatal(err)
			}
			st := load.NewStats()
			for _, a := range tt.attempts {
				res := &attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{a}, OK: a.Status == 200}
				c.Report(res)
				st.Add(res)
			}
			if got := c.Unreachable(st, target); got != tt.want {
				t.Errorf("Unreachable = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConsoleNotices(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	yellow := term.Style{Warn: term.Wrap{Pre: "\x1b[33m", Post: "\x1b[0m"}}
	c, err := NewConsole(ConsoleOptions{Format: term.Text, Out: &bytes.Buffer{}, Err: &errb, ErrStyle: yellow})
	if err != nil {
		t.Fatal(err)
	}
	c.Retry(&attempt.Request{Event: "CREATE_RECEIVABLE_DOC", RequestID: "r\x1b1"}, 1, attempt.Attempt{Status: 503, Wait: 1500 * time.Microsecond})
	c.Retry(&attempt.Request{Event: "CREATE_RECEIVABLE_DOC", RequestID: "r2"}, 2, attempt.Attempt{Status: 200, Truncated: true, Wait: time.Second})
	c.Warn("--insecure: %s", "not\x07verified")
	want := "\x1b[33mretry\x1b[0m CREATE_RECEIVABLE_DOC r\\x1b1 attempt 1: 503, retrying in 2ms\n" +
		"\x1b[33mretry\x1b[0m CREATE_RECEIVABLE_DOC r2 attempt 2: 200, answer cut short, retrying in 1s\n" +
		"\x1b[33mwarning:\x1b[0m --insecure: not\\x07verified\n"
	if got := errb.String(); got != want {
		t.Errorf("stderr\n%q, want\n%q", got, want)
	}
	if _, err := NewConsole(ConsoleOptions{Format: "xml"}); err == nil || !strings.Contains(err.Error(), "xml") {
		t.Errorf("unknown format: %v", err)
	}
}

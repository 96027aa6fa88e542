package load

import (
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

func TestRunOptionsFit(t *testing.T) {
	t.Parallel()
	roomy := files{Limit: 1 << 20, Open: 10}
	tests := []struct {
		name     string
		o        RunOptions
		total    int
		files    files
		perCall  int
		want     RunOptions
		wantNote string
	}{
		{name: "more workers than deliveries", o: RunOptions{Concurrency: 10_000_000}, total: 4, files: roomy, perCall: 1,
			want: RunOptions{Concurrency: 4}},
		{name: "an unknown total keeps the workers", o: RunOptions{Concurrency: 50}, files: roomy, perCall: 1,
			want: RunOptions{Concurrency: 50}},
		{name: "within the descriptors", o: RunOptions{Concurrency: 100}, total: 1000, files: files{Limit: 1024, Open: 10}, perCall: 1,
			want: RunOptions{Concurrency: 100}},
		{name: "closed model past the descriptors", o: RunOptions{Concurrency: 1_000_000}, files: files{Limit: 1024, Open: 10}, perCall: 1,
			want:     RunOptions{Concurrency: 950},
			wantNote: "--concurrency 1000000: the file descriptor limit (ulimit -n 1024, 10 open) allows 950 deliveries in flight; using 950"},
		{name: "own receiver: two descriptors a call", o: RunOptions{Concurrency: 1000}, files: files{Limit: 1024, Open: 10}, perCall: 2,
			want:     RunOptions{Concurrency: 475},
			wantNote: "--concurrency 1000: the file descriptor limit (ulimit -n 1024, 10 open) allows 475 deliveries in flight; using 475"},
		{name: "open model past the descriptors", o: RunOptions{Concurrency: 8, Rate: 100, MaxConcurrency: 1_000_000}, total: 10, files: files{Limit: 1024, Open: 10}, perCall: 1,
			want:     RunOptions{Concurrency: 8, Rate: 100, MaxConcurrency: 950},
			wantNote: "--max-concurrency 1000000: the file descriptor limit (ulimit -n 1024, 10 open) allows 950 deliveries in flight; using 950"},
		{name: "a limit below the reserve still sends", o: RunOptions{Concurrency: 8}, files: files{Limit: 40, Open: 10}, perCall: 1,
			want: RunOptions{Concurrency: 1}, wantNote: "allows 1 deliveries in flight; using 1"},
		{name: "an unknown limit", o: RunOptions{Concurrency: 1_000_000}, perCall: 1, want: RunOptions{Concurrency: 1_000_000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, note := tt.o.Fit(tt.total, tt.files, tt.perCall)
			if got.Concurrency != tt.want.Concurrency || got.MaxConcurrency != tt.want.MaxConcurrency || got.Rate != tt.want.Rate {
				t.Errorf("Fit = %+v, want %+v", got, tt.want)
			}
			if (tt.wantNote == "") != (note == "") || !strings.Contains(note, tt.wantNote) {
				t.Errorf("note %q, want %q", note, tt.wantNote)
			}
		})
	}
}

func TestRaiseFileLimit(t *testing.T) {
	if raiseFileLimit() <= 0 {
		t.Skip("no descriptor limit known here")
	}
	f := FilesNow()
	if f.Open < 3 || f.Limit < f.Open {
		t.Errorf("FilesNow() = %+v", f)
	}
}

// A limit of the sending machine is not the receiver's failure.
func TestClassifyLocal(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.EADDRNOTAVAIL, syscall.ENOBUFS} {
		err := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}}
		if k := attempt.Classify(err); k != attempt.KindLocal {
			t.Errorf("%v: kind %q, want %q", errno, k, attempt.KindLocal)
		}
		a := attempt.Attempt{Kind: attempt.Classify(err), Err: err.Error()}
		if got, want := attempt.ShortError(a), "local: socket: "+errno.Error(); got != want {
			t.Errorf("ShortError = %q, want %q", got, want)
		}
	}
	if k := attempt.Classify(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}); k != attempt.KindRefused {
		t.Errorf("refused: %q", k)
	}
	if !errors.Is(os.NewSyscallError("socket", syscall.EMFILE), syscall.EMFILE) {
		t.Fatal("the wrapping tested is not what net returns")
	}
}

package attempt

import (
	"context"
	"net"
	"testing"
)

// A call whose context ends (Ctrl-C, its time limit) while it waits for
// a kept-alive connection's reader to come back (ready) is given up, and
// net/http then closes the connection for it, before the reader has read
// it again: that close is the caller's, no sign of bytes the receiver
// left in net/http's buffer after the last answer. Blamed on the
// receiver, check failed the case answered last on the connection ("the
// receiver sent more bytes ... that no call asked for") when Ctrl-C came
// as the next call took the connection on a loaded machine (a flake of
// check_early_end: a FAILED row where every answer was a clean 200). A
// close with no call given up in between still notes them (the control
// row): the test can tell the two.
func TestCloseAfterACallGaveUpIsNoStray(t *testing.T) {
	for _, tt := range []struct {
		name      string
		giveUp    bool
		wantStray bool
	}{
		{"net/http closes it after a call gave up waiting", true, false},
		{"net/http closes it on its own, idle after an answer", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			server, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			wc := newWatchConn(client, nil)
			wc.plain.Store(true)
			// A call went out and its answer was read whole: net/http put
			// the connection back idle, and its reader has not read it
			// since (waiting unset).
			if _, err := wc.Write([]byte("POST / HTTP/1.1\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			wc.putIdle(wc.gen.Load())
			if tt.giveUp {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if wc.ready(ctx) {
					t.Fatal("ready with its context ended: want false")
				}
			}
			_ = wc.Close()
			_, seen := wc.note.Unasked()
			if seen != tt.wantStray {
				t.Errorf("bytes no call asked for noted: %v, want %v", seen, tt.wantStray)
			}
			if got := wc.note.Followed(wc.gen.Load()); got != tt.wantStray {
				t.Errorf("Followed(the last call) = %v, want %v", got, tt.wantStray)
			}
		})
	}
}

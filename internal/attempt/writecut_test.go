package attempt

import (
	"context"
	"io"
	"net"
	"testing"
)

// A write that fails with the receiver's reset is taken as written only
// when the call's answer came before it: the rest of the call then goes
// nowhere, and the connection carries no other call (ready refuses it).
// A reset with no answer is the write's failure, as it was.
func TestWriteCutOnlyAfterTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer string
		cut    bool
	}{
		{"an answer, then a reset", payloadTooLarge, true},
		{"a reset with no answer", "", false},
		{"bytes that are no answer, then a reset", "SSH-2.0-OpenSSH\r\n", false},
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
			wc := newWatchConn(client, nil)
			defer wc.Close()
			// A call of whsim's was given the connection, and its head went
			// out; net/http's reader reads the connection throughout.
			wc.plain.Store(true)
			wc.callAt.Store(wc.begun.Load())
			if _, err := wc.Write([]byte("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			// gotBytes hears of the reader's first bytes, readEnd of its end.
			gotBytes, readEnd := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(readEnd)
				b, first := make([]byte, 4096), true
				for {
					n, err := wc.Read(b)
					if n > 0 && first {
						close(gotBytes)
						first = false
					}
					if err != nil {
						return
					}
				}
			}()
			if tt.answer != "" {
				// Read before the reset, whose close would drop what the
				// receiver's socket had not yet sent.
				io.WriteString(server, tt.answer)
				<-gotBytes
			}
			server.(*net.TCPConn).SetLinger(0)
			server.Close() // a reset: the call's body is unread
			// The body, written until the reset fails a write: taken as
			// written after an answer, the write says nothing, and the
			// connection is cut.
			chunk := make([]byte, 64<<10)
			var werr error
			for werr == nil && !wc.cut.Load() {
				_, werr = wc.Write(chunk)
			}
			if wc.cut.Load() != tt.cut {
				t.Fatalf("cut %v (write error %v), want %v", wc.cut.Load(), werr, tt.cut)
			}
			if tt.cut {
				if n, err := wc.Write(chunk); n != len(chunk) || err != nil {
					t.Errorf("the call's rest after the cut: %d, %v; want all taken, no error", n, err)
				}
				if wc.ready(context.Background()) {
					t.Error("a cut connection found ready for another call")
				}
				if _, err := wc.Write(chunk); err == nil {
					t.Error("a write on the cut connection after ready refused it went through")
				}
			} else if Classify(werr) != KindReset {
				t.Errorf("write error %v, want a reset", werr)
			}
			wc.Close()
			<-readEnd
		})
	}
}

func TestIsAnswerStart(t *testing.T) {
	for _, tt := range []struct {
		b    string
		want bool
	}{
		{"HTTP/1.1 413 Payload Too Large\r\n", true},
		{"HTTP/1.0 200 OK", true},
		{"HTTP/1.", true},
		{"HTT", true}, // as far as it goes
		{"HTTP/2 200", false},
		{"SSH-2.0", false},
		{"", true},
	} {
		if got := isAnswerStart([]byte(tt.b)); got != tt.want {
			t.Errorf("isAnswerStart(%q) = %v, want %v", tt.b, got, tt.want)
		}
	}
}

package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/net/http2"
)

// h2Recv is an HTTP/2 receiver over TLS, written frame by frame, that
// reads each call's stream whole and then resets it with an error code
// (PROTOCOL_ERROR, REFUSED_STREAM, INTERNAL_ERROR) instead of answering:
// a receiver whose HTTP/2 server gave up on the call. NO_STREAMS is one
// that allows no stream open (SETTINGS_MAX_CONCURRENT_STREAMS 0) and
// refuses each that comes anyway (REFUSED_STREAM), unread: it reads none.
// HOLD6 allows two streams open on a connection and answers (200) only
// six calls in at once: it holds each until six are, on however many
// connections.
//
//	exec h2recv <readyfile> <ca.pem> <code> &
//
// It writes the certificate that signs its own to ca.pem and then its URL
// to readyfile, and on SIGINT or SIGTERM the number of calls it read
// whole to stdout: "read 5 calls".
func h2Recv() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: h2recv <readyfile> <ca.pem> <code>")
		return 2
	}
	codes := map[string]http2.ErrCode{"PROTOCOL_ERROR": http2.ErrCodeProtocol, "REFUSED_STREAM": http2.ErrCodeRefusedStream, "INTERNAL_ERROR": http2.ErrCodeInternal,
		"NO_STREAMS": http2.ErrCodeRefusedStream}
	var settings []http2.Setting
	if os.Args[3] == "NO_STREAMS" {
		settings = []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 0}}
	}
	code, ok := codes[os.Args[3]]
	var batch *heldBatch
	if os.Args[3] == "HOLD6" {
		settings = []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 2}}
		batch, ok = &heldBatch{size: 6}, true
	}
	if !ok {
		fmt.Fprintf(os.Stderr, "h2recv: unknown code %q\n", os.Args[3])
		return 2
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	cert, ca := localhostCert()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "h2recv: %v\n", err)
		return 1
	}
	var read atomic.Int64
	tl := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			go resetEachStream(c, settings, code, &read, batch)
		}
	}()
	if err := os.WriteFile(os.Args[2], ca, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "h2recv: %v\n", err)
		return 1
	}
	tmp := os.Args[1] + ".tmp"
	err = os.WriteFile(tmp, []byte("https://"+ln.Addr().String()+"/hook\n"), 0o644)
	if err == nil {
		err = os.Rename(tmp, os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "h2recv: %v\n", err)
		return 1
	}
	<-stop
	fmt.Printf("read %d calls\n", read.Load())
	tl.Close()
	return 0
}

// resetEachStream serves one HTTP/2 connection, its SETTINGS frame
// settings: each stream read to its end is counted and reset with code,
// and one that the settings did not allow is refused uncounted.
func resetEachStream(c net.Conn, settings []http2.Setting, code http2.ErrCode, read *atomic.Int64, batch *heldBatch) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	var mu sync.Mutex // one writer of frames at a time
	fr := http2.NewFramer(c, c)
	write := func(f func() error) {
		mu.Lock()
		defer mu.Unlock()
		_ = f()
	}
	write(func() error { return fr.WriteSettings(settings...) })
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		ended := false
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				write(fr.WriteSettingsAck)
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				write(func() error { return fr.WritePing(true, f.Data) })
			}
		case *http2.HeadersFrame:
			ended = f.StreamEnded()
		case *http2.DataFrame:
			ended = f.StreamEnded()
		case *http2.GoAwayFrame:
			return
		}
		if ended && batch != nil {
			read.Add(1)
			id := f.Header().StreamID
			batch.hold(func() {
				write(func() error {
					return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: status200, EndStream: true, EndHeaders: true})
				})
			})
			continue
		}
		if ended {
			if len(settings) == 0 {
				read.Add(1)
			}
			id := f.Header().StreamID
			write(func() error { return fr.WriteRSTStream(id, code) })
		}
	}
}

// heldBatch holds calls until size of them are in at once, then answers
// them all.
type heldBatch struct {
	mu   sync.Mutex
	size int
	held []func()
}

func (b *heldBatch) hold(answer func()) {
	b.mu.Lock()
	b.held = append(b.held, answer)
	var all []func()
	if len(b.held) == b.size {
		all, b.held = b.held, nil
	}
	b.mu.Unlock()
	for _, a := range all {
		a()
	}
}

// status200 is an HPACK block of ":status: 200" (static table index 8).
var status200 = []byte{0x88}

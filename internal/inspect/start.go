package inspect

import (
	"context"
	"net"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/validate"
)

// UI is the inspector served on an address of its own.
type UI struct {
	URL   string       // the page, with the session's token: http://127.0.0.1:4040/?token=...
	Base  string       // the page without it: http://127.0.0.1:4040/
	Token string       // the session's token (Options.Token)
	Addr  *net.TCPAddr // the address bound (see receiver.LoopbackOnly)
	done  chan error
}

// Start binds addr and serves the inspector on it until ctx is done.
func Start(ctx context.Context, addr string, opts Options) (*UI, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	tcp := ln.Addr().(*net.TCPAddr)
	h := newHandler(opts)
	base := receiver.URLOf(tcp) + "/"
	ui := &UI{URL: base + "?" + tokenQuery + "=" + h.Token(), Base: base, Token: h.Token(), Addr: tcp, done: make(chan error, 1)}
	go func() { ui.done <- serve(ctx, ln, h) }()
	return ui, nil
}

// Wait returns the server's end, once the context Start was given is done.
func (u *UI) Wait() error { return <-u.done }

// listenWindow is how many calls listen --ui keeps for the page. Kept
// calls stay on the heap: with 10,000 the heap under load grew past the
// caches and listen spent 15 to 35% more CPU per call (fresh spans for
// every body); with 1,000 no difference showed. With a capture file the
// page reads older calls back from it (the store keeps 16 bytes a call).
const listenWindow = 1000

// listenWindowBytes bounds the bodies listen --ui keeps in memory: 450
// bodies of 10 MB held 4.4 GB when only calls were counted. Past it the
// oldest calls keep their summaries and their bodies are read back from
// the capture file (without one, they are gone from the page).
const listenWindowBytes = 64 << 20

// NewListenStore is the store of a running receiver's page, listenWindow
// calls and listenWindowBytes long: with a capture file (capturePath not "") the calls that left
// the window are read back from it and checked with check, as the receiver
// checked them; without one they are gone from the page.
func NewListenStore(capturePath string, check func(*capture.Record) []validate.Finding) *Store {
	if capturePath == "" {
		return NewStore(listenWindow).LimitBytes(listenWindowBytes)
	}
	return newFileStore(capturePath, listenWindow, check).LimitBytes(listenWindowBytes)
}

// Observe offers a receiver's call to the store without waiting (see
// Offer): the receiver's queue never slows down for a browser.
func (f *Feed) Observe(c *receiver.Call) {
	f.Offer(c.Record, c.Offset, c.Body, reqid.Read(c.Content), c.Findings)
}

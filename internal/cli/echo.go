package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/deliver"
)

// echoReceiver is the receiver `send` uses without --url: it answers 200
// and tells on w what it received. It is a stand-in, kept in this one file,
// for listen's receiver (internal/receiver) to replace.
type echoReceiver struct {
	URL  string
	srv  *http.Server
	done chan struct{}

	mu    sync.Mutex
	w     io.Writer
	shown int
	more  int
}

// echoShown is how many calls the echo receiver describes; a load run
// would otherwise drown the terminal.
const echoShown = 20

func startEcho(w io.Writer, pal Palette, verbose bool) (*echoReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the receiver: %w", err)
	}
	e := &echoReceiver{URL: "http://" + ln.Addr().String() + "/webhook", w: w, done: make(chan struct{})}
	e.srv = &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       time.Minute,
		Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, 10<<20))
			if err != nil {
				http.Error(rw, "body too large", http.StatusRequestEntityTooLarge)
				return
			}
			e.saw(pal, verbose, r, body)
			rw.Header().Set("Content-Type", "application/json")
			io.WriteString(rw, `{"ok":true}`)
		}),
	}
	go func() {
		defer close(e.done)
		_ = e.srv.Serve(ln)
	}()
	return e, nil
}

func (e *echoReceiver) saw(pal Palette, verbose bool, r *http.Request, body []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shown >= echoShown {
		e.more++
		return
	}
	e.shown++
	id := "-"
	if s, end := deliver.FindRequestID(body); s >= 0 {
		id = string(body[s:end])
	}
	fmt.Fprintf(e.w, "%s %s %s  content-type %s  %d bytes  requestId %s\n", pal.Dim.Sprint("received"),
		termSafe(r.Method, false), termSafe(r.URL.RequestURI(), false), termSafe(r.Header.Get("Content-Type"), false), len(body), termSafe(id, false))
	if verbose {
		writeBody(e.w, "  | ", body)
	}
}

// Close stops the receiver and reports the calls it did not describe.
func (e *echoReceiver) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.srv.Shutdown(ctx)
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.more > 0 {
		fmt.Fprintf(e.w, "received %d more calls\n", e.more)
	}
}

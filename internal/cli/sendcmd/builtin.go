package sendcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/whsim/whsim/internal/cli/listenout"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/validate"
)

// builtinReceiver is what send delivers to without --url: listen's receiver on a
// free loopback port, checking every call against the spec, and telling on
// w what it saw, as listen would.
type builtinReceiver struct {
	URL string

	rcv    *receiver.Receiver
	out    *bufio.Writer
	p      *listenout.CallPrinter
	w      io.Writer
	st     term.Style
	stop   context.CancelFunc
	served chan error
}

// builtinShown is how many calls the built-in receiver prints; a load run
// would otherwise drown the terminal. All of them are tallied.
const builtinShown = 20

// startBuiltin starts the built-in receiver, printing to w in the style st
// (its Verbose shows each call's headers and body).
func startBuiltin(w io.Writer, st term.Style) (*builtinReceiver, error) {
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		return nil, err
	}
	out := bufio.NewWriter(w)
	p := listenout.NewCallPrinter(out, false, st)
	p.Limit = builtinShown
	rcv := receiver.New(receiver.Config{
		Checker: v,
		Observe: func(c *receiver.Call) { p.Observe(c, nil) }, // nothing is forwarded
		Idle:    func() { out.Flush() },
	})
	srv, err := receiver.Listen("127.0.0.1:0", rcv, receiver.DefaultLimits)
	if err != nil {
		rcv.Close()
		return nil, fmt.Errorf("starting the built-in receiver: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	st.Verbose = false // the tallies are the same with -v
	b := &builtinReceiver{URL: srv.URL() + "/webhook", rcv: rcv, out: out, p: p, w: w, st: st, stop: stop, served: make(chan error, 1)}
	go func() { b.served <- srv.Serve(ctx) }()
	return b, nil
}

// Close shuts the receiver down once every call is answered and observed,
// and prints its tallies.
func (b *builtinReceiver) Close() {
	b.stop()
	<-b.served
	b.rcv.Close()
	b.out.Flush()
	b.p.Summary(b.w, b.st, "built-in receiver saw:", "")
}

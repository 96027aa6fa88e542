// Command receiver is the minimal webhook receiver the send benchmark
// measures against: it reads each body and answers 200, nothing else, so
// that the clients are what is compared. It listens on 127.0.0.1 only and
// prints its URL once it accepts connections.
//
// With -stall D -every P (the stall benchmark) it holds every call that
// arrives in the first D of every P until that D ends: a receiver that
// pauses (a GC, a lock, a slow disk) and then catches up.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	stall := flag.Duration("stall", 0, "hold calls arriving in the first this long of every -every")
	every := flag.Duration("every", 5*time.Second, "the stall's period")
	flag.Parse()
	start := time.Now()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/webhook\n", ln.Addr())
	srv := &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if *stall > 0 {
				if into := time.Since(start) % *every; into < *stall {
					time.Sleep(*stall - into)
				}
			}
		}),
	}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

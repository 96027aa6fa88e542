// Command tool is the benchmark's helper for bench/listen: the baseline
// receiver listen is compared with, a load generator that logs every
// acknowledged call, and a checker of a capture file against what was
// acknowledged.
//
//	tool baseline -ready-file F          minimal net/http handler: read the body, answer 200
//	tool load -url U -body F -c 16 -n N -acked F
//	tool check -capture F [-body F] [-acked F] [-min N]
//	tool declare -addr A -c 300 -size 10485760 -send 1 -rounds 5 -hold 1s
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tool baseline|load|check|declare [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "baseline":
		err = baseline(os.Args[2:])
	case "load":
		err = load(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "declare":
		err = declare(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tool:", err)
		os.Exit(1)
	}
}

// baseline is the reference: the least a Go receiver can do.
func baseline(args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ExitOnError)
	ready := fs.String("ready-file", "", "write the URL here once listening")
	fs.Parse(args)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	})}
	if err := os.WriteFile(*ready, []byte("http://"+ln.Addr().String()+"/\n"), 0o644); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// load sends the body with a fresh requestId per call from c senders until
// n calls or the first connection failure after one succeeded (the
// receiver was killed), and logs the requestId of every 2xx.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	u := fs.String("url", "", "URL with query")
	bodyFile := fs.String("body", "", "payload file (compact JSON with a requestId)")
	c := fs.Int("c", 16, "concurrent senders")
	n := fs.Int64("n", 1_000_000, "calls at most")
	d := fs.Duration("d", 30*time.Second, "time at most")
	ackedFile := fs.String("acked", "", "log of acknowledged requestIds")
	fs.Parse(args)
	tmpl, err := os.ReadFile(*bodyFile)
	if err != nil {
		return err
	}
	i := bytes.Index(tmpl, []byte(`"requestId":"`))
	if i < 0 {
		return errors.New("body has no requestId")
	}
	i += len(`"requestId":"`)
	pre, post := tmpl[:i], tmpl[i+36:]
	out, err := os.Create(*ackedFile)
	if err != nil {
		return err
	}
	defer out.Close()
	var mu sync.Mutex
	w := bufio.NewWriter(out)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *c}}
	var next, acked, failed atomic.Int64
	deadline := time.Now().Add(*d)
	var wg sync.WaitGroup
	for range *c {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				k := next.Add(1)
				if k > *n || failed.Load() > 0 {
					return
				}
				id := fmt.Sprintf("%08x-0000-4000-8000-%012x", k>>48, k)
				body := append(append(append([]byte{}, pre...), id...), post...)
				resp, err := client.Post(*u, "application/json", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					acked.Add(1)
					mu.Lock()
					w.WriteString(id + "\n")
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	fmt.Printf("load: %d acknowledged, %d senders stopped by a connection error\n", acked.Load(), failed.Load())
	return w.Flush()
}

// check counts the records of a capture and compares them with what was
// acknowledged: by identical body (-body) or by requestId (-acked).
func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	capFile := fs.String("capture", "", "capture file")
	bodyFile := fs.String("body", "", "every record's body must be these bytes")
	ackedFile := fs.String("acked", "", "every requestId listed must be recorded")
	fs.Parse(args)
	f, err := os.Open(*capFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var want []byte
	if *bodyFile != "" {
		if want, err = os.ReadFile(*bodyFile); err != nil {
			return err
		}
	}
	ids := map[string]int{}
	records, intact, torn, bad := 0, 0, 0, 0
	rd := capture.NewReader(f)
	for {
		rec, err := rd.Next()
		var te *capture.TornError
		var le *capture.LineError
		switch {
		case errors.Is(err, io.EOF):
		case errors.As(err, &te):
			torn++
			continue
		case errors.As(err, &le):
			bad++
			continue
		case err != nil:
			return err
		}
		if rec == nil {
			break
		}
		records++
		b, err := rec.RequestBody()
		if err != nil {
			return err
		}
		if want != nil && bytes.Equal(b, want) {
			intact++
		}
		var env struct {
			RequestID string `json:"requestId"`
		}
		if json.Unmarshal(b, &env) == nil {
			ids[env.RequestID]++
		}
	}
	fmt.Printf("records=%d torn=%d badlines=%d", records, torn, bad)
	if want != nil {
		fmt.Printf(" intact=%d", intact)
	}
	failed := torn > 1 || bad > 0 || (want != nil && intact != records)
	if *ackedFile != "" {
		a, err := os.ReadFile(*ackedFile)
		if err != nil {
			return err
		}
		acked, lost, dup := 0, 0, 0
		for _, id := range strings.Fields(string(a)) {
			acked++
			if ids[id] == 0 {
				lost++
			}
		}
		for _, n := range ids {
			if n > 1 {
				dup++
			}
		}
		fmt.Printf(" acked=%d lost=%d duplicated=%d", acked, lost, dup)
		failed = failed || lost > 0 || dup > 0
	}
	fmt.Println()
	if failed {
		return errors.New("capture check failed")
	}
	return nil
}

// declare is the connection-memory attack: rounds of c connections at once,
// each declaring a Content-Length of size, sending send bytes of it, holding
// the connection for hold, then closing it. It prints how the calls ended.
func declare(args []string) error {
	fs := flag.NewFlagSet("declare", flag.ExitOnError)
	addr := fs.String("addr", "", "host:port of listen")
	c := fs.Int("c", 300, "connections per round")
	size := fs.Int64("size", 10<<20, "declared Content-Length")
	send := fs.Int64("send", 1, "body bytes actually sent (at most size)")
	rounds := fs.Int("rounds", 5, "rounds")
	hold := fs.Duration("hold", time.Second, "how long each connection is held after sending")
	fs.Parse(args)
	head := fmt.Sprintf("POST /?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", *addr, *size)
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	var answered, cut atomic.Int64
	for range *rounds {
		var wg sync.WaitGroup
		for range *c {
			wg.Go(func() {
				conn, err := net.DialTimeout("tcp", *addr, 5*time.Second)
				if err != nil {
					cut.Add(1)
					return
				}
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(*hold + 60*time.Second))
				if _, err := io.WriteString(conn, head); err != nil {
					cut.Add(1)
					return
				}
				for left := *send; left > 0; {
					n, err := conn.Write(chunk[:min(left, int64(len(chunk)))])
					if err != nil {
						cut.Add(1)
						return
					}
					left -= int64(n)
				}
				if *send >= *size {
					// Whole: wait for the answer.
					resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
					if err != nil {
						cut.Add(1)
						return
					}
					resp.Body.Close()
					answered.Add(1)
					return
				}
				time.Sleep(*hold)
			})
		}
		wg.Wait()
	}
	fmt.Printf("declare: %d rounds x %d connections declaring %d bytes, %d sent each: %d answered, %d cut\n",
		*rounds, *c, *size, *send, answered.Load(), cut.Load())
	return nil
}

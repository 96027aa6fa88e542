package receiver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// nullWriter is a ResponseWriter that keeps nothing, reused across calls:
// the benchmark counts the receiver's allocations, not a recorder's.
type nullWriter struct {
	h      http.Header
	status int
}

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) WriteHeader(code int)        { w.status = code }
func (w *nullWriter) Write(b []byte) (int, error) { return len(b), nil }

// benchReceiver is listen --capture as whsim runs it, minus the socket:
// the real validator, a real capture file (--fsync interval, the default)
// and an observer that counts.
func benchReceiver(b *testing.B) (*Receiver, *capture.File, *atomic.Int64, []byte) {
	b.Helper()
	body, err := fixtures.Get("CREATE_RECEIVABLE_DOC", spec.Sample)
	if err != nil {
		b.Fatal(err)
	}
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		b.Fatal(err)
	}
	f, _, err := capture.OpenFile(filepath.Join(b.TempDir(), "bench.ndjson"), capture.SyncInterval)
	if err != nil {
		b.Fatal(err)
	}
	var observed atomic.Int64
	rcv := New(Config{Capture: f, Checker: v, Observe: func(*Call) { observed.Add(1) }, Recycle: true})
	return rcv, f, &observed, body
}

func benchRequest(body []byte) (*http.Request, *bytes.Reader) {
	rd := bytes.NewReader(body)
	req := &http.Request{
		Method:        http.MethodPost,
		URL:           &url.URL{Path: "/", RawQuery: "businessType=CREATE_RECEIVABLE_DOC"},
		Header:        http.Header{"Content-Type": {"application/json"}, "User-Agent": {"bench"}},
		Body:          io.NopCloser(rd),
		ContentLength: int64(len(body)),
		RemoteAddr:    "127.0.0.1:40000",
	}
	return req, rd
}

// BenchmarkServeHTTPCapture is one call through the whole path listen
// takes after net/http: read, record (one line in a real capture file),
// answer, then validate and observe on the observer goroutine (Close
// waits for it, inside the timing). allocs/op counts both goroutines.
func BenchmarkServeHTTPCapture(b *testing.B) {
	rcv, f, observed, body := benchReceiver(b)
	req, rd := benchRequest(body)
	w := &nullWriter{h: http.Header{}}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		rd.Reset(body)
		clear(w.h)
		rcv.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("answered %d", w.status)
		}
	}
	rcv.Close()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if observed.Load() == 0 {
		b.Fatal("nothing observed")
	}
}

// BenchmarkServeHTTPCaptureParallel is the same from concurrent handlers,
// as under wrk -c16: the capture's group commit is in play.
func BenchmarkServeHTTPCaptureParallel(b *testing.B) {
	rcv, f, _, body := benchReceiver(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		req, rd := benchRequest(body)
		w := &nullWriter{h: http.Header{}}
		for pb.Next() {
			rd.Reset(body)
			clear(w.h)
			rcv.ServeHTTP(w, req)
			if w.status != http.StatusOK {
				b.Errorf("answered %d", w.status)
				return
			}
		}
	})
	rcv.Close()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListenSocket is one call over a real keep-alive connection to
// the server Listen builds: net/http's own work included. unwatched hides
// the receiver from Listen (a plain handler), so the connection is not
// watched for requests net/http refuses itself (rejected.go): the two
// differ by exactly that watch.
func BenchmarkListenSocket(b *testing.B) {
	for _, watched := range []bool{false, true} {
		name := "unwatched"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			rcv, f, _, body := benchReceiver(b)
			var h http.Handler = rcv
			if !watched {
				h = http.HandlerFunc(rcv.ServeHTTP)
			}
			s, err := Listen("127.0.0.1:0", h, DefaultLimits)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- s.Serve(ctx) }()
			conn, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			req := []byte("POST /?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
				strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))
			// Every answer is as long as the first (a Date header of fixed
			// width): read that many bytes, with no parsing on this side.
			conn.Write(req)
			first := make([]byte, 4096)
			n, err := conn.Read(first)
			if err != nil || !bytes.HasSuffix(first[:n], []byte(`{"status":200}`+"\n")) {
				b.Fatalf("first answer %q, %v", first[:n], err)
			}
			answer := first[:n]
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := conn.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(conn, answer); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			conn.Close()
			cancel()
			<-served
			rcv.Close()
			f.Close()
		})
	}
}

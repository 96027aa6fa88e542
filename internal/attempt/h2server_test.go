package attempt

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Server is an HTTP/2 receiver over TLS written frame by frame, to
// misbehave as net/http's server never would. It reads each call's
// stream to its end (HEADERS, then DATA up to END_STREAM), counts it,
// and hands it to answer, which writes what the receiver does with it.
type h2Server struct {
	ln    net.Listener
	roots *x509.CertPool
	// streams counts the calls read whole: what the receiver got.
	streams atomic.Int64
	// settings are sent in the receiver's first SETTINGS frame.
	settings []http2.Setting
	answer   func(w *h2Writer, streamID uint32)
	// greet, when set, writes what the receiver sends after its SETTINGS
	// frame, before it reads a call.
	greet func(w *h2Writer)
	// accepted counts the connections the receiver took.
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn // closed at the end of the test
	// ended hears of each connection whose client sent GOAWAY or closed it.
	ended chan struct{}
	// acked hears of each SETTINGS frame of the receiver's the client
	// acknowledged: it has read it.
	acked chan struct{}
}

// h2Writer writes a connection's frames, one writer at a time.
type h2Writer struct {
	mu sync.Mutex
	fr *http2.Framer
	c  net.Conn
}

func (w *h2Writer) do(f func(fr *http2.Framer) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = f(w.fr)
}

// headers writes a HEADERS frame of the pseudo-header and fields kv.
func (w *h2Writer) headers(streamID uint32, end bool, kv ...string) {
	var b bytes.Buffer
	enc := hpack.NewEncoder(&b)
	for i := 0; i+1 < len(kv); i += 2 {
		_ = enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	w.do(func(fr *http2.Framer) error {
		return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: streamID, BlockFragment: b.Bytes(), EndStream: end, EndHeaders: true})
	})
}

func (w *h2Writer) rst(streamID uint32, code http2.ErrCode) {
	w.do(func(fr *http2.Framer) error { return fr.WriteRSTStream(streamID, code) })
}

func newH2Server(t *testing.T, settings []http2.Setting, answer func(w *h2Writer, streamID uint32)) *h2Server {
	t.Helper()
	return newGreetingH2Server(t, settings, nil, answer)
}

// newGreetingH2Server is an h2Server that writes greet's frames on each
// connection after its SETTINGS.
func newGreetingH2Server(t *testing.T, settings []http2.Setting, greet func(w *h2Writer), answer func(w *h2Writer, streamID uint32)) *h2Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	cert, roots := ts.TLS.Certificates[0], x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	ts.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &h2Server{ln: tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}}),
		roots: roots, settings: settings, greet: greet, answer: answer, ended: make(chan struct{}, 100), acked: make(chan struct{}, 100)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		s.ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *h2Server) url() *url.URL {
	u, _ := url.Parse("https://" + s.ln.Addr().String() + "/hook")
	return u
}

func (s *h2Server) serve(c net.Conn) {
	defer c.Close()
	defer func() {
		select {
		case s.ended <- struct{}{}:
		default:
		}
	}()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	w := &h2Writer{fr: http2.NewFramer(c, c), c: c}
	fr := http2.NewFramer(nil, c)
	w.do(func(fr *http2.Framer) error { return fr.WriteSettings(s.settings...) })
	if s.greet != nil {
		s.greet(w)
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				w.do(func(fr *http2.Framer) error { return fr.WriteSettingsAck() })
				break
			}
			select {
			case s.acked <- struct{}{}:
			default:
			}
		case *http2.HeadersFrame:
			if f.StreamEnded() {
				s.read(w, f.StreamID)
			}
		case *http2.DataFrame:
			if f.StreamEnded() {
				s.read(w, f.StreamID)
			}
		case *http2.PingFrame:
			// x/net's client counts a stream it cancelled as open until a
			// PING it sends with the RST_STREAM is answered.
			if !f.IsAck() {
				w.do(func(fr *http2.Framer) error { return fr.WritePing(true, f.Data) })
			}
		case *http2.GoAwayFrame:
			return
		}
	}
}

// read counts a call read whole and answers it, apart from the reading of
// the connection's frames, as a receiver's handler runs.
func (s *h2Server) read(w *h2Writer, streamID uint32) {
	s.streams.Add(1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.answer(w, streamID)
	}()
}

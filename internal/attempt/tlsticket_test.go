package attempt

import (
	"bufio"
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/hex"
	"hash"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// recordSealer writes a TLS 1.3 server's records itself, from the
// traffic secret its KeyLogWriter gave: the way to send a post-handshake
// message (a NewSessionTicket) on a connection after an answer, which
// crypto/tls's server only sends during its handshake.
type recordSealer struct {
	aead cipher.AEAD
	iv   []byte
	seq  uint64
}

// expandLabel is TLS 1.3's HKDF-Expand-Label with an empty context (RFC
// 8446, 7.1).
func expandLabel(h func() hash.Hash, secret []byte, label string, n int) ([]byte, error) {
	full := "tls13 " + label
	info := append([]byte{byte(n >> 8), byte(n), byte(len(full))}, full...)
	info = append(info, 0)
	return hkdf.Expand(h, secret, string(info), n)
}

func newRecordSealer(suite uint16, secret []byte) (*recordSealer, error) {
	h, keyLen := sha256.New, 16
	switch suite {
	case tls.TLS_AES_128_GCM_SHA256:
	case tls.TLS_AES_256_GCM_SHA384:
		h, keyLen = sha512.New384, 32
	default:
		return nil, io.ErrUnexpectedEOF
	}
	key, err := expandLabel(h, secret, "key", keyLen)
	if err != nil {
		return nil, err
	}
	iv, err := expandLabel(h, secret, "iv", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &recordSealer{aead: aead, iv: iv}, nil
}

// record seals p, of the inner content type typ (23 application data, 22
// handshake), as the next record.
func (s *recordSealer) record(typ byte, p []byte) []byte {
	inner := append(bytes.Clone(p), typ)
	n := len(inner) + s.aead.Overhead()
	hdr := []byte{23, 3, 3, byte(n >> 8), byte(n)}
	nonce := bytes.Clone(s.iv)
	for i := range 8 {
		nonce[4+i] ^= byte(s.seq >> (56 - 8*i))
	}
	s.seq++
	return append(hdr, s.aead.Seal(nil, nonce, inner, hdr)...)
}

// newSessionTicket is a TLS 1.3 NewSessionTicket message (RFC 8446,
// 4.6.1): an hour's lifetime, a 16-byte ticket, no extensions.
func newSessionTicket() []byte {
	body := []byte{0, 0, 0x0e, 0x10, 1, 2, 3, 4, 1, 0, 0, 16}
	body = append(body, bytes.Repeat([]byte{0xab}, 16)...)
	body = append(body, 0, 0)
	return append([]byte{4, 0, byte(len(body) >> 8), byte(len(body))}, body...)
}

// ticketServer is a TLS 1.3 receiver (HTTP/1.1 alone in ALPN) that
// answers each call once with answer200; after the first answer on its
// first connection it waits to be told (more), then sends a session
// ticket, and after it, in the same write, extra when set, then says so
// (wrote). Its records after the handshake are its own (recordSealer).
func ticketServer(t *testing.T, extra string, more, wrote chan struct{}) (string, *tls.Config) {
	t.Helper()
	conf, roots := http1TLS(t)
	conf.MinVersion = tls.VersionTLS13
	conf.SessionTicketsDisabled = true // none in the handshake: the server's first record after it is the first answer
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for conn := 0; ; conn++ {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn int) {
				defer raw.Close() // not the TLS's close: its records are ours
				var keylog bytes.Buffer
				c := conf.Clone()
				c.KeyLogWriter = &keylog
				tc := tls.Server(raw, c)
				if err := tc.Handshake(); err != nil {
					return
				}
				var secret []byte
				for line := range strings.Lines(keylog.String()) {
					if f := strings.Fields(line); len(f) == 3 && f[0] == "SERVER_TRAFFIC_SECRET_0" {
						secret, _ = hex.DecodeString(f[2])
					}
				}
				seal, err := newRecordSealer(tc.ConnectionState().CipherSuite, secret)
				if err != nil {
					t.Errorf("cannot seal records of cipher suite %s (secret %d bytes): %v",
						tls.CipherSuiteName(tc.ConnectionState().CipherSuite), len(secret), err)
					return
				}
				br := bufio.NewReader(tc)
				for k := 0; ; k++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					if _, err := raw.Write(seal.record(23, []byte(answer200))); err != nil {
						return
					}
					if conn == 0 && k == 0 {
						<-more
						out := seal.record(22, newSessionTicket())
						if extra != "" {
							out = append(out, seal.record(23, []byte(extra))...)
						}
						_, _ = raw.Write(out)
						close(wrote)
					}
				}
			}(conn)
		}
	}()
	return "https://" + ln.Addr().String() + "/hook", &tls.Config{RootCAs: roots}
}

// A TLS 1.3 session ticket the receiver sends on an idle kept-alive
// connection is a record of the TLS, no answer: nothing is noted, and the
// next call goes out on that connection once it was read. Bytes no call
// asked for that come after it are noted as on a plain connection.
func TestSessionTicketOnAnIdleConnectionIsNoUnaskedAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		extra    string
		first    string
		unasked  bool
		sameConn bool
	}{
		{name: "ticket alone", sameConn: true},
		{name: "ticket, then a second answer", extra: answer500, first: "HTTP/1.1 500 Internal Server Error", unasked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			more, wrote := make(chan struct{}), make(chan struct{})
			var once sync.Once
			t.Cleanup(func() { once.Do(func() { close(more) }) })
			target, trust := ticketServer(t, tc.extra, more, wrote)
			d := unaskedDelivererTrusting(t, target, trust.RootCAs)
			a1 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
			if a1.Status != 200 || a1.Conn == nil {
				t.Fatalf("first call: %+v, want a 200 on a watched connection", a1)
			}
			once.Do(func() { close(more) })
			<-wrote
			a2 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
			if a2.Status != 200 {
				t.Fatalf("second call: %+v, want a 200", a2)
			}
			if got := a2.Conn == a1.Conn; got != tc.sameConn {
				t.Errorf("second call on the first one's connection: %v, want %v", got, tc.sameConn)
			}
			a1.Conn.Settle()
			a2.Conn.Settle()
			first, seen := a1.Conn.Unasked()
			if seen != tc.unasked || first != tc.first {
				t.Errorf("first connection: Unasked() = %q, %v; want %q, %v", first, seen, tc.first, tc.unasked)
			}
			if got := a1.Conn.Followed(a1.ConnCall); got != tc.unasked {
				t.Errorf("bytes followed the first call's answer: %v, want %v", got, tc.unasked)
			}
		})
	}
}

// heldConn holds what is written on it, once hold is set, until flush
// sends it in one write: a receiver's records that come to the client in
// one read. Only the receiver's goroutine uses it.
type heldConn struct {
	net.Conn
	hold bool
	held []byte
}

func (c *heldConn) Write(p []byte) (int, error) {
	if !c.hold {
		return c.Conn.Write(p)
	}
	c.held = append(c.held, p...)
	return len(p), nil
}

func (c *heldConn) flush() error {
	// crypto/tls's close_notify ends with a write deadline of now, so
	// that nothing more goes out on its own.
	if err := c.Conn.SetWriteDeadline(time.Time{}); err != nil {
		return err
	}
	_, err := c.Conn.Write(c.held)
	return err
}

// A receiver that closes the connection right after its answer, saying
// nothing of it (no Connection: close), its close_notify in the read of
// the answer (over TLS 1.2 crypto/tls then gives the answer's bytes with
// io.EOF; TLS 1.3 hides an alert's record type, and gives them apart):
// the close is seen after the answer, the next call goes on a new
// connection, and nothing is noted; bytes between the answer and the
// close are noted as having come with the answer. Before (readTLS's
// pendErr), over TLS 1.2 net/http took the connection as ended with the
// answer, and such bytes went unseen.
func TestCloseNotifyWithTheAnswerOverTLS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answer  string
		unasked bool
	}{
		{name: "answer, close", answer: answer200},
		{name: "answer, bytes, close", answer: answer200 + answer500, unasked: true},
	} {
		for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
			t.Run(tc.name+", "+tls.VersionName(version), func(t *testing.T) {
				t.Parallel()
				conf, roots := http1TLS(t)
				conf.MinVersion, conf.MaxVersion = version, version
				ln := testnet.Serve(t, func(raw net.Conn) {
					hc := &heldConn{Conn: raw}
					sc := tls.Server(hc, conf)
					req, err := http.ReadRequest(bufio.NewReader(sc))
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					hc.hold = true
					_, _ = io.WriteString(sc, tc.answer)
					_ = sc.CloseWrite() // close_notify, held with the answer
					if hc.flush() != nil {
						return
					}
					_, _ = io.Copy(io.Discard, raw) // until the client closes
				})
				d := unaskedDelivererTrusting(t, "https://"+ln.Addr().String()+"/hook", roots)
				a1 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
				if a1.Status != 200 || a1.Conn == nil {
					t.Fatalf("first call: %+v, want a 200 on a watched connection", a1)
				}
				r2 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)})
				a2 := r2.Last()
				if a2.Status != 200 || r2.Tries() != 1 || a2.Conn == a1.Conn {
					t.Fatalf("second call: %+v in %d tries, want a 200 on a new connection, at once", a2, r2.Tries())
				}
				a1.Conn.Settle()
				first, seen := a1.Conn.Unasked()
				if seen != tc.unasked || first != "" {
					t.Errorf("first connection: Unasked() = %q, %v; want \"\", %v", first, seen, tc.unasked)
				}
				if got := a1.Conn.Followed(a1.ConnCall); got != tc.unasked {
					t.Errorf("bytes followed the first call's answer: %v, want %v", got, tc.unasked)
				}
			})
		}
	}
}

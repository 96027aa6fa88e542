package attempt

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"os"
	"syscall"
	"testing"
)

// Classify names each failure as its error says it, wrapped as net/http
// wraps it (a *url.Error around a *net.OpError): a failure named as
// another kind is counted, retried and explained as that kind (a
// refusal taken for the sender's own limit, Ctrl-C for the receiver's
// fault).
func TestClassify(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:9/", Err: &net.OpError{Op: "read", Net: "tcp", Err: err}}
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{wrap(redirectError("stopped after 10 redirects")), KindRedirect},
		{wrap(context.Canceled), KindInterrupted},
		{wrap(syscall.EMFILE), KindLocal},
		{wrap(syscall.ENOMEM), KindLocal},
		{wrap(syscall.EADDRNOTAVAIL), KindLocal},
		{wrap(syscall.ECONNREFUSED), KindRefused},
		{wrap(syscall.ECONNRESET), KindReset},
		{wrap(syscall.EPIPE), KindReset},
		{wrap(context.DeadlineExceeded), KindTimeout},
		{wrap(os.ErrDeadlineExceeded), KindTimeout},
		{&net.DNSError{Err: "i/o timeout", Name: "h", IsTimeout: true}, KindTimeout},
		{wrap(&net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}), KindDNS},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), KindTLS},
		{wrap(x509.UnknownAuthorityError{}), KindTLS},
		{wrap(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}), KindTLS},
		{wrap(malformedError("malformed HTTP status code \"x\"")), KindMalformed},
		{wrap(textproto.ProtocolError("malformed MIME header line: x")), KindMalformed},
		{fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", errors.New("http: malformed HTTP response \"x\"")), KindMalformed},
		{wrap(io.EOF), KindClosed},
		{wrap(io.ErrUnexpectedEOF), KindClosed},
		{errors.New("something else"), KindOther},
	} {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

package receiver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// newClient returns the client that forwards calls: a pool sized to the
// expected concurrency, timeouts, and no redirects followed (a followed 302
// turns a POST into a GET and loses the body; the sender should see the 302).
func newClient(conns int, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil, // a local receiver, never through a proxy
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: timeout,
		ForceAttemptHTTP2:     false,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// hopHeader counts the listens a call has been forwarded through.
const hopHeader = "Whsim-Forwarded"

// maxForwardHops is how many times a call may have been forwarded already
// for listen to forward it again; past it, the call is answered 508: listens
// forwarding to each other, directly or through a receiver that forwards
// on, would pass it round for ever.
const maxForwardHops = 3

// hopsOf is the call's hop count, 0 when it has none or it is not a count.
func hopsOf(h http.Header) int {
	n, err := strconv.Atoi(h.Get(hopHeader))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// hopHeaders belong to one connection, not to the call (RFC 9110 7.6.1), so
// they are not passed on in either direction.
var hopHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length",
}

func copyHeader(src http.Header) http.Header {
	h := src.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range hopHeaders {
		delete(h, k)
	}
	return h
}

// target is the URL a call goes on to: ForwardTo's path when it has one,
// else the call's own path; the call's query, after ForwardTo's own.
func target(base *url.URL, req *http.Request) *url.URL {
	u := *base
	if u.Path == "" || u.Path == "/" {
		u.Path, u.RawPath = req.URL.Path, req.URL.RawPath
	}
	switch {
	case u.RawQuery == "":
		u.RawQuery = req.URL.RawQuery
	case req.URL.RawQuery != "":
		u.RawQuery += "&" + req.URL.RawQuery
	}
	return &u
}

// forward sends the call on and returns the answer to give the sender: the
// receiver's own, or 502 when it could not be reached.
func (r *Receiver) forward(ctx context.Context, req *http.Request, body []byte) (answer, *capture.Forward) {
	u := target(r.cfg.ForwardTo, req)
	fwd := &capture.Forward{URL: u.String()}
	out, err := http.NewRequestWithContext(ctx, req.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		fwd.Error = err.Error()
		return plain(http.StatusBadGateway), fwd
	}
	out.Header = copyHeader(req.Header)
	out.Header[hopHeader] = []string{strconv.Itoa(hopsOf(req.Header) + 1)}
	out.ContentLength = int64(len(body))
	if len(body) == 0 {
		out.Body = http.NoBody
	}
	start := time.Now()
	resp, err := r.cfg.Client.Do(out)
	if err == nil {
		var rb []byte
		rb, err = io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxBody+1))
		resp.Body.Close()
		if err == nil && int64(len(rb)) > r.cfg.MaxBody {
			err = errTooLargeAnswer
		}
		if err == nil {
			fwd.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
			fwd.Status = resp.StatusCode
			fwd.Headers = copyHeader(resp.Header)
			fwd.Body, fwd.BodyEncoding = capture.EncodeBody(rb)
			return answer{status: resp.StatusCode, header: fwd.Headers, body: rb}, fwd
		}
	}
	fwd.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if cut := stopCause(ctx); cut != nil && !isStopCut(err) {
		// net/http's client says the cause of a canceled call, but not
		// every error of a call cut short is that one.
		err = fmt.Errorf("%w: %w", cut, err)
	}
	fwd.Error = err.Error()
	return plain(http.StatusBadGateway), fwd
}

type forwardError string

func (e forwardError) Error() string { return string(e) }

const errTooLargeAnswer = forwardError("the receiver's answer is over the body limit")

// Package ready answers whether a whsim server that announced itself in a
// ready file (listen --ready-file, inspect --ready-file) is up: the file
// holds its URL, and the URL's address accepts a connection. It is the
// health check of whsim's container image, which has no shell to test a
// file or open a socket with. Announce writes such a file for a server and
// takes it away when the server stops.
package ready

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/whsim/whsim/internal/ctxio"
)

// NotReady says why the server is not ready (yet): no file, or nothing
// accepting connections at the address it names. Waiting may change it.
type NotReady struct{ Reason string }

func (e *NotReady) Error() string { return e.Reason }

// maxFile bounds what is read: a ready file holds one URL.
const maxFile = 8 << 10

// DialTimeout bounds one connection attempt. A listen that is up answers
// a connect from its own container or host at once.
const DialTimeout = 2 * time.Second

// Check reads the URL from the ready file at path and dials its address
// once. It returns the URL when something accepts the connection; a
// *NotReady when the file is missing or the dial fails; any other error
// when the file cannot be read or holds no http(s) URL, which waiting
// will not change.
//
// It connects and closes without a request: an HTTP request to listen
// would be a call, recorded and flagged.
func Check(ctx context.Context, path string) (string, error) {
	b, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &NotReady{Reason: path + " does not exist: the server has not started, or it stopped"}
	}
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: want the http:// URL a --ready-file holds, got %q", path, truncate(line, 80))
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	d := net.Dialer{Timeout: DialTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &NotReady{Reason: fmt.Sprintf("%s names %s, which does not accept connections (%v): the server stopped without removing it?", path, u, unwrapDial(err))}
	}
	c.Close()
	return u.String(), nil
}

// Wait checks every interval until the server is ready, an error that
// waiting will not change, or within has passed (then a *NotReady with
// the last reason). A cancelled ctx (Ctrl-C) returns its error.
func Wait(ctx context.Context, path string, within, interval time.Duration) (string, error) {
	wctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		u, err := Check(wctx, path)
		if err == nil {
			return u, nil
		}
		var nr *NotReady
		if !errors.As(err, &nr) && wctx.Err() == nil {
			return "", err // a file that is not a ready file: waiting will not help
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			// One last look, without the wait's deadline: a dial whose
			// deadline is past fails before it tries, and a loaded machine
			// may hold this goroutine past it; "not ready" must come of a
			// look at the server.
			u, err := Check(ctx, path)
			switch {
			case err == nil:
				return u, nil
			case errors.As(err, &nr):
				return "", &NotReady{Reason: fmt.Sprintf("not ready within %s: %s", within, nr.Reason)}
			case ctx.Err() != nil:
				return "", ctx.Err()
			default:
				return "", err
			}
		case <-t.C:
		}
	}
}

// readFile reads the ready file, which only a regular file is: Announce
// writes one. It is opened without blocking, since a FIFO in its place
// would hold the open until a writer came, deaf to Ctrl-C and SIGTERM.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
		return nil, fmt.Errorf("%s: not a regular file (%s): a ready file is one listen or inspect writes", path, ctxio.FileKind(m))
	}
	return io.ReadAll(io.LimitReader(f, maxFile))
}

// unwrapDial drops the "dial tcp 127.0.0.1:1:" prefix the message repeats.
func unwrapDial(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

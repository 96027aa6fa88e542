//go:build !unix

package receiver

import (
	"io"
	"net"
)

// newRawWriter is nil where raw write(2) calls are not: the connection
// writes itself.
func newRawWriter(net.Conn) io.Writer { return nil }

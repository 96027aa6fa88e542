//go:build !linux

package deliver

import (
	"io"
	"net"
)

// newSockIO returns c's reader and writer (raw system calls on Linux only).
func newSockIO(c net.Conn) io.ReadWriter { return c }

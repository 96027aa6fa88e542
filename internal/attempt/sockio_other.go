//go:build !linux

package attempt

import "net"

// newSockIO returns c's reader and sender (raw system calls on Linux
// only).
func newSockIO(c net.Conn) connIO { return &netIO{Conn: c} }

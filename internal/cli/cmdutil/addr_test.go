package cmdutil

import (
	"errors"
	"net"
	"testing"
)

// An address a listener refuses gets what was probably meant: a port
// alone, a host without its port, a URL where host:port goes.
func TestAddrError(t *testing.T) {
	tests := []struct{ flag, addr, want string }{
		{"--addr", "9020", "--addr 9020: a port alone is not an address (did you mean 127.0.0.1:9020?)"},
		{"--addr", "127.0.0.1", "--addr 127.0.0.1: no port (did you mean 127.0.0.1:8080?)"},
		{"--addr", "localhost", "--addr localhost: no port (did you mean localhost:8080?)"},
		{"--ui", "::1", "--ui ::1: no port (did you mean [::1]:4040?)"},
		{"--ui", "[::1]", "--ui [::1]: no port (did you mean [::1]:4040?)"},
		{"--addr", "http://127.0.0.1:9020", "--addr http://127.0.0.1:9020: an address is host:port, not a URL (did you mean 127.0.0.1:9020?)"},
		{"--addr", "http://localhost/hook", "--addr http://localhost/hook: an address is host:port, not a URL (did you mean localhost:8080?)"},
		{"--addr", "127.0.0.1:99999", "--addr 127.0.0.1:99999: listen tcp: address 99999: invalid port"},
	}
	for _, tt := range tests {
		_, lerr := net.Listen("tcp", tt.addr)
		if lerr == nil {
			t.Fatalf("%s: listened", tt.addr)
		}
		err := AddrError(tt.flag, tt.addr, lerr)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || err.Error() != tt.want {
			t.Errorf("addrError(%s %s) = %v, want usage error %q", tt.flag, tt.addr, err, tt.want)
		}
	}
}

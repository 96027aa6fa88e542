package cli

import "strconv"

// addrError is the usage error of an address a listener refused (listen
// --addr, --ui). A port alone gets what was probably meant rather than
// Go's "missing port in address".
func addrError(flag, addr string, err error) error {
	if n, perr := strconv.ParseUint(addr, 10, 16); perr == nil {
		return usagef("%s %s: a port alone is not an address (did you mean 127.0.0.1:%d?)", flag, addr, n)
	}
	return usagef("%s %s: %w", flag, addr, err)
}

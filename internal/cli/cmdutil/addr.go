package cmdutil

import (
	"net"
	"net/url"
	"strconv"
)

// AddrError is the usage error of an address a listener refused (listen
// --addr, --ui). A port alone, a host alone and a URL get what was
// probably meant rather than Go's "missing port in address" or "too many
// colons in address".
func AddrError(flag, addr string, err error) error {
	if n, perr := strconv.ParseUint(addr, 10, 16); perr == nil {
		return Usagef("%s %s: a port alone is not an address (did you mean 127.0.0.1:%d?)", flag, addr, n)
	}
	port := "8080" // listen's default
	if flag == "--ui" {
		port = "4040" // the inspector's, as the help shows it
	}
	if u, perr := url.Parse(addr); perr == nil && u.Scheme != "" && u.Host != "" {
		host := u.Host
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), port)
		}
		return Usagef("%s %s: an address is host:port, not a URL (did you mean %s?)", flag, addr, host)
	}
	if _, _, serr := net.SplitHostPort(addr); serr != nil && (net.ParseIP(trimBrackets(addr)) != nil || addr == "localhost") {
		return Usagef("%s %s: no port (did you mean %s?)", flag, addr, net.JoinHostPort(trimBrackets(addr), port))
	}
	return Usagef("%s %s: %w", flag, addr, err)
}

func trimBrackets(s string) string {
	if len(s) > 1 && s[0] == '[' && s[len(s)-1] == ']' {
		return s[1 : len(s)-1]
	}
	return s
}

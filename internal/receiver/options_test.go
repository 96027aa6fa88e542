package receiver

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/fault"
)

func TestOptionsConfig(t *testing.T) {
	ok := Options{Status: 200, MaxBody: "10MiB"}
	with := func(f func(*Options)) Options { o := ok; f(&o); return o }
	tests := []struct {
		name string
		opts Options
		err  string // "" for none
	}{
		{name: "defaults", opts: ok},
		{name: "everything", opts: with(func(o *Options) {
			o.Path, o.Delay, o.FailRate, o.Respond, o.ForwardTo = "/hook", time.Second, 0.5, []string{"CREATE_RECEIVABLE_DOC=500,200"}, "http://127.0.0.1:9/x"
		})},
		{name: "status", opts: with(func(o *Options) { o.Status = 99 }), err: "status: "},
		{name: "delay", opts: with(func(o *Options) { o.Delay = -time.Second }), err: "delay -1s: want a duration from 0 to 5m0s, as --fault delay's (e.g. 500ms, 2s)"},
		{name: "delay longest", opts: with(func(o *Options) { o.Delay = fault.MaxDelay })},
		// A delay of years would hold every call and listen's stop.
		{name: "delay too long", opts: with(func(o *Options) { o.Delay = 99999 * time.Hour }), err: "delay 99999h0m0s: want a duration from 0 to 5m0s, as --fault delay's (e.g. 500ms, 2s)"},
		{name: "fail-rate", opts: with(func(o *Options) { o.FailRate = 1.5 }), err: "fail-rate 1.5: want a share from 0 to 1 (0.1 fails one call in ten)"},
		{name: "respond", opts: with(func(o *Options) { o.Respond = []string{"nope"} }), err: "respond: "},
		{name: "path", opts: with(func(o *Options) { o.Path = "hook" }), err: `path "hook": want a path starting with /`},
		{name: "max-body", opts: with(func(o *Options) { o.MaxBody = "lots" }), err: "max-body: "},
		{name: "forward-to", opts: with(func(o *Options) { o.ForwardTo = "ftp://x" }), err: `forward-to "ftp://x": want an http:// or https:// URL`},
		{name: "forward-to without a scheme", opts: with(func(o *Options) { o.ForwardTo = "localhost:3000" }), err: `forward-to "localhost:3000": no scheme (did you mean http://localhost:3000?)`},
		// Credentials masked as send's --url error masks them.
		// Each call's own businessType goes after the URL's query: two, the
		// URL's first, which most receivers read for every event.
		{name: "forward-to with a businessType", opts: with(func(o *Options) { o.ForwardTo = "http://127.0.0.1:9/x?businessType=CREATE_RECEIVABLE_DOC" }), err: `forward-to "http://127.0.0.1:9/x?businessType=CREATE_RECEIVABLE_DOC": the query has businessType already; whsim adds each call's own (drop it from the URL)`},
		{name: "forward-to with credentials", opts: with(func(o *Options) { o.ForwardTo = "ftp://u:pw@x/?token=s3cret" }), err: `forward-to "ftp://u:xxxxx@x/?token=****": want an http:// or https:// URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tt.opts.Config()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Config = %v", err)
				}
				if cfg.Status != tt.opts.Status || cfg.MaxBody != 10<<20 || len(cfg.Respond) != len(tt.opts.Respond) ||
					(tt.opts.ForwardTo != "") != (cfg.ForwardTo != nil && cfg.Client != nil) {
					t.Errorf("Config = %+v", cfg)
				}
				return
			}
			oe, isOption := errors.AsType[*optionError](err)
			if !isOption || len(err.Error()) < len(tt.err) || err.Error()[:len(tt.err)] != tt.err || oe.Option != strings.Fields(tt.name)[0] {
				t.Fatalf("Config = %v, want an OptionError of %s starting %q", err, strings.Fields(tt.name)[0], tt.err)
			}
		})
	}
}

func TestHookURL(t *testing.T) {
	s, err := Listen("127.0.0.1:0", http.NotFoundHandler(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer s.ln.Close()
	for path, want := range map[string]string{"": s.URL() + "/", "/hook": s.URL() + "/hook"} {
		if got := s.HookURL(path); got != want {
			t.Errorf("HookURL(%q) = %q, want %q", path, got, want)
		}
	}
}

// URLOf names a server bound to every interface by IPv4 loopback, which
// Go's "tcp" listener on a wildcard also takes (0.0.0.0, [::] and no host
// all bind one dual-stack socket that reports [::]). [::1] would fail
// where IPv6 is off on the loopback (Docker before 26 on an IPv4-only
// network): the image's health check, whsim ready, dialled it and never
// saw listen --addr 0.0.0.0:8080 up.
func TestURLOf(t *testing.T) {
	for _, tt := range []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://[::1]:8080"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 8080}, "http://192.168.1.2:8080"},
	} {
		if got := URLOf(tt.addr); got != tt.want {
			t.Errorf("URLOf(%v) = %q, want %q", tt.addr, got, tt.want)
		}
	}
	// The URL reaches the server however every interface was named.
	for _, bind := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		s, err := Listen(bind, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), DefaultLimits)
		if err != nil {
			if strings.Contains(bind, "::") {
				continue // no IPv6 here
			}
			t.Fatal(err)
		}
		u := s.URL()
		c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
		if err != nil {
			t.Errorf("bound %s (%s): %s does not reach it: %v", bind, s.Addr(), u, err)
		} else {
			c.Close()
		}
		s.ln.Close()
	}
}

func TestLoopbackOnly(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
		{&net.TCPAddr{IP: net.IPv6loopback}, true},
		{&net.TCPAddr{IP: net.IPv4zero}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2)}, false},
		{&net.UnixAddr{Name: "/tmp/x"}, false},
	}
	for _, tt := range tests {
		if got := LoopbackOnly(tt.addr); got != tt.want {
			t.Errorf("LoopbackOnly(%v) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

package inspect

import (
	"bytes"
	"cmp"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
)

// The page's "copy as curl", run as printed by sh with the real curl,
// sends the call's body and content type as they came: a body that starts
// with '@' is not a file name for curl to read (it sent that file, of the
// user's machine, instead), a call that came without a Content-Type does
// not go with curl's application/x-www-form-urlencoded, and quotes, $()
// and backticks in a body reach the receiver as bytes, never the shell;
// brackets and braces in a query are no curl globs; a Proxy-Authorization
// goes no more than replay sends it.
func TestCopyAsCurlSendsTheCall(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	type got struct {
		ctype  []string
		body   []byte
		method string
		query  string
		proxy  string
	}
	calls := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls <- got{r.Header.Values("Content-Type"), b, r.Method, r.URL.RawQuery, r.Header.Get("Proxy-Authorization")}
	}))
	defer srv.Close()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("a file of the user's"), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	tests := []struct {
		name  string
		body  string
		ctype []string // nil: the call came without one
		query string   // "" for the event's alone
	}{
		{name: "brackets and braces in the query", body: `{}`, ctype: []string{"application/json"},
			query: "businessType=CREATE_RECEIVABLE_DOC&items[0]=x&b={x,y}&r=[1-3]"},
		{name: "a body starting with @", body: "@" + secret, ctype: []string{"application/json"}},
		{name: "a body that is @ alone", body: "@", ctype: []string{"application/json"}},
		{name: "no content type", body: `{"requestId":"r-1"}`},
		{name: "no content type, a body starting with @", body: "@" + secret},
		{name: "no content type, a body from its file", body: "\xff\xfe{}"},
		{name: "quotes, $() and backticks", body: `{"a":"it's \"q\" $(touch ` + marker + `) ` + "`touch " + marker + "`" + `"}` + "\n", ctype: []string{"application/json; charset=utf-8"}},
	}
	for _, tt := range tests {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(tt.body), 200)
		if tt.query != "" {
			rec.Query = tt.query
		}
		// A proxy's credential, never the receiver's: replay drops it.
		rec.Headers["Proxy-Authorization"] = []string{"Basic eDp5"}
		delete(rec.Headers, "Content-Type")
		if tt.ctype != nil {
			rec.Headers["Content-Type"] = tt.ctype
		}
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL})
		if err := os.WriteFile(filepath.Join(dir, "call-1.json"), []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		curl, _ := h.commands(c, "call-1.json")
		cmd := exec.Command("sh", "-c", curl+" -sS -o /dev/null")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", tt.name, curl, err, out)
		}
		g := <-calls
		if !bytes.Equal(g.body, []byte(tt.body)) {
			t.Errorf("%s: %s\nsent body %q, want %q", tt.name, curl, g.body, tt.body)
		}
		if len(g.ctype) != len(tt.ctype) || len(g.ctype) > 0 && g.ctype[0] != tt.ctype[0] {
			t.Errorf("%s: %s\nsent Content-Type %q, want %q", tt.name, curl, g.ctype, tt.ctype)
		}
		if g.query != rec.Query {
			t.Errorf("%s: %s\nsent query %q, want %q", tt.name, curl, g.query, rec.Query)
		}
		if g.proxy != "" {
			t.Errorf("%s: %s\nsent Proxy-Authorization %q", tt.name, curl, g.proxy)
		}
		if g.method != "POST" {
			t.Errorf("%s: %s\nsent %s", tt.name, curl, g.method)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command ran what the body held")
	}
}

// A HEAD call (listen records calls of any method) copied as curl ends
// with its answer: with -X HEAD curl waited for the body the answer's
// Content-Length announced, which a HEAD answer never has, and the
// command hung until the server gave up on it.
func TestCopyAsCurlOfAHead(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	methods := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods <- r.Method
		io.WriteString(w, `{"status":200}`) // a HEAD answer: its length, no body
	}))
	defer srv.Close()
	rec := record(1, "CREATE_RECEIVABLE_DOC", nil, 200)
	rec.Method = http.MethodHead
	s := NewStore(10)
	c := s.Add(rec, nil)
	h := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL})
	curl, _ := h.commands(c, "call-1.json")
	// --max-time bounds the hang: the test fails rather than waits.
	out, err := exec.Command("sh", "-c", curl+" -sS --max-time 20 -o /dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", curl, err, out)
	}
	if m := <-methods; m != http.MethodHead {
		t.Errorf("%s: sent %s", curl, m)
	}
}

// The copied curl asks for the path the call came to, as its sender wrote
// it: listen kept /hooks/a%2Fb decoded, and the command asked for
// /hooks/a/b, another resource to a receiver that routes on the raw path;
// curl squashes "/./" and "/../" unless told not to, and a URL cannot
// hold a byte the sender wrote raw. The HAR's url and the send command
// name the path as sent too.
func TestCopyAsCurlSendsThePathAsSent(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	targets := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targets <- r.RequestURI
	}))
	defer srv.Close()
	for _, tc := range []struct {
		path, raw string
		inURL     string // the HAR's and the send command's path
	}{
		{"/hooks/a/b", "/hooks/a%2Fb", "/hooks/a%2Fb"},
		{"/hooks/A", "/hooks/%41", "/hooks/%41"},
		{"/hooks/./x/../y", "", "/hooks/./x/../y"},
		{"//hooks//z", "", "//hooks//z"},
		{"/hooks/p;v=1", "", "/hooks/p;v=1"},
		{"/hooks/é", "/hooks/é", "/hooks/%C3%A9"},
		{"/hooks/\xe9", "/hooks/\xe9", "/hooks/%E9"},
		{"/hooks/p#q", "/hooks/p#q", "/hooks/p%23q"},
		{"/hooks/a b", "", "/hooks/a%20b"},
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
		rec.Path, rec.RawPath = tc.path, tc.raw
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL})
		curl, send := h.commands(c, "call-1.json")
		out, err := exec.Command("sh", "-c", curl+" -sS -o /dev/null").CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %s: %v\n%s", tc.raw, curl, err, out)
		}
		if got, want := <-targets, rec.TargetPath()+"?"+rec.Query; got != want {
			t.Errorf("%q %q: %s\nasked for %q, want %q", tc.path, tc.raw, curl, got, want)
		}
		if !strings.Contains(send, "'"+srv.URL+tc.inURL+"'") && !strings.Contains(send, " "+srv.URL+tc.inURL+" ") {
			t.Errorf("%q %q: send command %s, want its URL's path %s", tc.path, tc.raw, send, tc.inURL)
		}
		if want := cmp.Or(tc.raw, tc.path); summarize(c).Path != want || !bytes.Contains(appendSummary(nil, c), []byte(`"path":`+strconv.Quote(want))) && utf8.ValidString(want) {
			t.Errorf("%q %q: the list's path %q, want %q", tc.path, tc.raw, summarize(c).Path, want)
		}
		if u := entryOf(c, srv.URL).Request.URL; u != srv.URL+tc.inURL+"?"+rec.Query {
			t.Errorf("%q %q: HAR url %s, want the path %s", tc.path, tc.raw, u, tc.inURL)
		}
	}
}

// A call whose request line named no path but "*" (OPTIONS *, the
// asterisk form listen records as it came) copied as curl asks for "*":
// the command put "*" after the port, http://127.0.0.1:8080*, and curl
// refused the URL (exit 3) before sending anything. whsim send, which
// asks for a URL's path, says why it has no command for it.
func TestCopyAsCurlOfAnAsteriskTarget(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	type got struct{ method, target string }
	calls := make(chan got, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls <- got{r.Method, r.RequestURI}
	}))
	// As listen does: Go's server answers OPTIONS * itself otherwise.
	srv.Config.DisableGeneralOptionsHandler = true
	srv.Start()
	defer srv.Close()
	// A CONNECT's authority, which listen records as it came (a client
	// that took listen for an HTTP proxy), is no path either.
	for _, tc := range []struct{ method, target string }{
		{http.MethodOptions, "*"}, {http.MethodPost, "*"}, {http.MethodConnect, "example.com:443"},
	} {
		method := tc.method
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
		rec.Method, rec.Path, rec.RawPath, rec.Query = method, tc.target, "", ""
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL})
		d := h.describe(c)
		out, err := exec.Command("sh", "-c", d.Curl+" -sS -o /dev/null").CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %s: %v\n%s", method, tc.target, d.Curl, err, out)
		}
		if g := <-calls; g.method != method || g.target != tc.target {
			t.Errorf("%s %s: %s\nsent %s %s", method, tc.target, d.Curl, g.method, g.target)
		}
		if d.Send != "" || d.NoSend == "" {
			t.Errorf("%s %s: send command %q, no-send reason %q: want none, and why", method, tc.target, d.Send, d.NoSend)
		}
	}
}

// A call whose query whsim send's --url refuses (a ';' between pairs,
// an escape that is none, "%zz") offers no send command and says why:
// the page offered one, and pasted it ended at once with "bad query:
// invalid semicolon separator in query", nothing sent. Curl sends it.
func TestNoSendCommandForAQuerySendRefuses(t *testing.T) {
	for _, q := range []string{"a=1;b=2", "bad=%zz", "x=%"} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		rec.Query = "businessType=CREATE_RECEIVABLE_DOC&" + q
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"})
		d := h.describe(c)
		if d.Send != "" || !strings.Contains(d.NoSend, "--url") {
			t.Errorf("query %q: send command %q, no-send reason %q: want none, and why", q, d.Send, d.NoSend)
		}
		if d.Curl == "" {
			t.Errorf("query %q: no curl command", q)
		}
	}
	// A query send takes keeps its command.
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
	rec.Query = "tenant=t%201&businessType=CREATE_RECEIVABLE_DOC"
	s := NewStore(10)
	c := s.Add(rec, nil)
	if d := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"}).describe(c); d.Send == "" {
		t.Errorf("query %q: no send command (%s)", rec.Query, d.NoSend)
	}
}

// A record whsim replay refuses (a hand-edited capture: a CR or LF in a
// header, a header name or method that is no token, a control character
// in the query) offers no command and says why: the page copied a curl
// whose -H value held "\r\nInjected: 1", and curl sent Injected as a
// header of its own, a request nobody made, while replay and the page's
// replay button refused the record. A tab and bytes above 0x7f in a
// value, which a sender may send, keep the commands.
func TestNoCommandForARecordReplayRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(r *capture.Record)
		refuse string // in the reason; "" when the commands stay
	}{
		{"CR LF in a header value", func(r *capture.Record) { r.Headers["X-A"] = []string{"v\r\nInjected: 1"} }, "0x0d"},
		{"LF in a header name", func(r *capture.Record) { r.Headers["X-A\nInjected"] = []string{"1"} }, "not a header name"},
		{"a space in the method", func(r *capture.Record) { r.Method = "PO ST" }, "not an HTTP method"},
		{"a control character in the query", func(r *capture.Record) { r.Query += "&a=\x01" }, "control character"},
		{"a tab and obs-text in a header value", func(r *capture.Record) { r.Headers["X-A"] = []string{"a\tb\xe9"} }, ""},
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		tc.edit(rec)
		s := NewStore(10)
		c := s.Add(rec, nil)
		d := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"}).describe(c)
		if tc.refuse == "" {
			if d.Curl == "" || d.Send == "" || d.NoCommand != "" {
				t.Errorf("%s: curl %q, send %q, no-command reason %q: want both commands", tc.name, d.Curl, d.Send, d.NoCommand)
			}
			continue
		}
		if d.Curl != "" || d.Send != "" || !strings.Contains(d.NoCommand, tc.refuse) {
			t.Errorf("%s: curl %q, send %q, no-command reason %q: want none, and why (%s)", tc.name, d.Curl, d.Send, d.NoCommand, tc.refuse)
		}
	}
}

// A call whose query names businessType more than once (receivers read
// such a query differently: listen's query-event finding) offers no send
// command, and says why: the copied whsim send sent the one businessType
// of its --event, another call than the one captured, whose query the
// receiver reads alike everywhere. Curl sends it as it came.
func TestNoSendCommandForTwoBusinessTypes(t *testing.T) {
	for _, q := range []string{
		"businessType=CREATE_RECEIVABLE_DOC&businessType=ABANDON_RECEIVABLE_DOC",
		"businessType=CREATE_RECEIVABLE_DOC&businessType=CREATE_RECEIVABLE_DOC",
		"businessType=CREATE_RECEIVABLE_DOC&x=1&business%54ype=ABANDON_RECEIVABLE_DOC",
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		rec.Query = q
		s := NewStore(10)
		c := s.Add(rec, nil)
		d := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"}).describe(c)
		if d.Send != "" || !strings.Contains(d.NoSend, "names businessType 2 times") {
			t.Errorf("query %q: send command %q, no-send reason %q: want none, and why", q, d.Send, d.NoSend)
		}
		if d.Curl == "" {
			t.Errorf("query %q: no curl command", q)
		}
	}
}

// A call that came as HTTP/1.0 or as h2c (HTTP/2 without TLS, which
// listen takes too) is copied as a curl that speaks that protocol: curl
// spoke HTTP/1.1 to every call, and a receiver that answers the three
// differently (keep-alive, chunked answers) was sent another call.
func TestCopyAsCurlSpeaksTheCallsProtocol(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	protos := make(chan string, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // an h2 stream whose body is left unread is reset: curl exits 92
		protos <- r.Proto
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	protocols := []string{"", "HTTP/1.0"}
	if v, _ := exec.Command("curl", "-V").Output(); bytes.Contains(v, []byte(" HTTP2")) {
		protocols = append(protocols, "HTTP/2.0") // a curl built without nghttp2 speaks none
	}
	for _, proto := range protocols {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		rec.Proto = proto
		s := NewStore(10)
		c := s.Add(rec, nil)
		curl, _ := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL}).commands(c, "call-1.json")
		if out, err := exec.Command("sh", "-c", curl+" -sS -o /dev/null").CombinedOutput(); err != nil {
			t.Fatalf("%q: %s: %v\n%s", proto, curl, err, out)
		}
		if got, want := <-protos, cmp.Or(proto, "HTTP/1.1"); got != want {
			t.Errorf("a call that came as %s: %s\nspoke %s", want, curl, got)
		}
	}
}

// The copied curl sends the User-Agent and Accept the call came with, and
// none it came without: curl sent its own "curl/8.x" and "Accept: */*" in
// their place, another call than the sender's (a receiver may route or
// refuse on either), where whsim replay sends the captured ones.
func TestCopyAsCurlSendsTheCallsUserAgentAndAccept(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (scripts/install-tools.sh curl): the copied command is run as a user pastes it")
	}
	type got struct{ ua, accept []string }
	calls := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls <- got{r.Header.Values("User-Agent"), r.Header.Values("Accept")}
	}))
	defer srv.Close()
	for _, tc := range []struct{ ua, accept []string }{
		{[]string{"ERP-Webhook/2.1"}, nil},
		{nil, []string{"application/json"}},
		{nil, nil},
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		delete(rec.Headers, "User-Agent")
		delete(rec.Headers, "Accept")
		if tc.ua != nil {
			rec.Headers["User-Agent"] = tc.ua
		}
		if tc.accept != nil {
			rec.Headers["Accept"] = tc.accept
		}
		s := NewStore(10)
		c := s.Add(rec, nil)
		curl, _ := newHandler(Options{Token: testToken, Store: s, Origin: srv.URL}).commands(c, "call-1.json")
		if out, err := exec.Command("sh", "-c", curl+" -sS -o /dev/null").CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", curl, err, out)
		}
		if g := <-calls; !slices.Equal(g.ua, tc.ua) || !slices.Equal(g.accept, tc.accept) {
			t.Errorf("%s\nsent User-Agent %q and Accept %q, want %q and %q", curl, g.ua, g.accept, tc.ua, tc.accept)
		}
	}
}

// whsim send adds its --event's businessType after the rest of --url's
// query, as the spec writes it: a call whose query named it elsewhere
// (first, between two parameters) or wrote it otherwise offers no send
// command, and says why. The copied command sent "a=1&b=2&businessType=E"
// for a call that came with "a=1&businessType=E&b=2": another call to a
// receiver that reads the raw query or signs it. Curl sends it as it came.
func TestNoSendCommandForAQuerySendWouldReorder(t *testing.T) {
	for _, tc := range []struct {
		query string
		send  bool
	}{
		{"businessType=CREATE_RECEIVABLE_DOC", true},
		{"tenant=7&businessType=CREATE_RECEIVABLE_DOC", true},
		{"n=ab#cd&businessType=CREATE_RECEIVABLE_DOC", true}, // '#' goes as %23, as --url must write it
		{"businessType=CREATE_RECEIVABLE_DOC&tenant=7", false},
		{"a=1&businessType=CREATE_RECEIVABLE_DOC&b=2", false},
		{"business%54ype=CREATE_RECEIVABLE_DOC", false},
		{"businessType=CREATE%5FRECEIVABLE_DOC", false},
		{"a=1&&businessType=CREATE_RECEIVABLE_DOC", false},
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
		rec.Query = tc.query
		s := NewStore(10)
		c := s.Add(rec, nil)
		d := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"}).describe(c)
		switch {
		case d.Curl == "":
			t.Errorf("query %q: no curl command", tc.query)
		case tc.send && d.Send == "":
			t.Errorf("query %q: no send command (%s)", tc.query, d.NoSend)
		case !tc.send && (d.Send != "" || !strings.Contains(d.NoSend, "whsim send would send its query as")):
			t.Errorf("query %q: send command %q, no-send reason %q: want none, and why", tc.query, d.Send, d.NoSend)
		}
	}
}

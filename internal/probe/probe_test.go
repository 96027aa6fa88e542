package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/spec"
)

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		count int
		state string
		lines int
		err   string // a word of the error; "" for none
	}{
		{`{"count":1,"state":"created","lines":3}`, 1, StateCreated, 3, ""},
		{`[{"count":1,"state":"voided"}]`, 1, StateVoided, -1, ""},
		{"  [{\"count\": 2, \"state\": \"audited\", \"extra\": [1], \"extra\": 2}]\n", 2, StateAudited, -1, ""},
		{`{"count":0}`, 0, "", -1, ""},
		{`[{"count":0,"state":null,"lines":null}]`, 0, "", -1, ""},
		{`{"count":1.0,"state":"created","lines":1e1}`, 1, StateCreated, 10, ""},
		// Outside the contract: said, never coerced into a verdict.
		// A count as node-postgres or ClickHouse print a 64-bit integer: its
		// digits alone, one way to write one number.
		{`{"count":"1","state":"created","lines":"12"}`, 1, StateCreated, 12, ""},
		{`{"count":"0"}`, 0, "", -1, ""},
		{`{"count":" 1 ","state":"created"}`, 0, "", -1, `count " 1 ": a string that is not a count's digits alone`},
		{`{"count":"+1","state":"created"}`, 0, "", -1, "not a count's digits"},
		{`{"count":"1e0","state":"created"}`, 0, "", -1, "not a count's digits"},
		{`{"count":"01","state":"created"}`, 0, "", -1, "not a count's digits"},
		{`{"count":"","state":"created"}`, 0, "", -1, "not a count's digits"},
		{`{"count":1,"state":"created","lines":"0x1"}`, 0, "", -1, `lines "0x1": a string that is not`},
		{`{"count":1,"state":"Audited"}`, 0, "", -1, `state "Audited": want created, audited or voided, as written`},
		{`{"count":1,"state":" voided "}`, 0, "", -1, `state " voided "`},
		{`{"count":1,"state":""}`, 0, "", -1, `state ""`},
		{`{"count":0,"count":1,"state":"created"}`, 0, "", -1, `"count" twice`},
		{`{"count":1,"state":"voided","state":"created"}`, 0, "", -1, `"state" twice`},
		{`[{"count":1,"state":"voided","lines":1,"lin\u0065s":2}]`, 0, "", -1, `"lines" twice`},
		// A query of the rows, not their count: sqlite3 -json prints
		// nothing for no row, and a row per record held.
		{``, 0, "", -1, "nothing, want a JSON object with count"},
		{`[]`, 0, "", -1, "an array of 0 values, want one object (no row? count(*) answers one row, 0 for none)"},
		{`[{"count":1},{"count":1}]`, 0, "", -1, "an array of 2 values, want one object (a row per record? answer one row, count(*) as count)"},
		{`hello`, 0, "", -1, "not JSON"},
		// encoding/json names a byte past ASCII as the Latin-1 letter it
		// would be ('ÿ' for 0xff, 'ä' for the first byte of 中): the
		// message says the character, or the byte that is not UTF-8.
		{"\xff\xfe{\x00\"\x00", 0, "", -1, "not JSON: invalid byte 0xff, not UTF-8 (JSON is UTF-8: convert what the probe prints, as from UTF-16 or Latin-1) looking for beginning of value at byte 1"},
		{"{\"count\":1,\"state\":\"created\"}\xe9", 0, "", -1, "not JSON: invalid byte 0xe9, not UTF-8"},
		{"中", 0, "", -1, "not JSON: invalid character '中' looking for beginning of value at byte 1"},
		{`[{"count":1`, 0, "", -1, "not JSON"},
		{`"count"`, 0, "", -1, "not a JSON object"},
		{`{"state":"created"}`, 0, "", -1, "no count"},
		{`{"count":-1}`, 0, "", -1, "whole number"},
		{`{"count":1.5}`, 0, "", -1, "whole number"},
		{`{"count":1}`, 0, "", -1, "no state"},
		{`{"count":1,"state":null}`, 0, "", -1, "count 1 and no state"},
		{`{"count":1,"state":"open"}`, 0, "", -1, `state "open"`},
		{`{"count":1,"state":7}`, 0, "", -1, "want a string"},
		{`{"count":1,"state":"created","lines":"x"}`, 0, "", -1, "lines"},
		// A byte-order mark, as some Windows tools and editors write one.
		{"\ufeff{\"count\":1,\"state\":\"created\"}\r\n", 1, StateCreated, -1, ""},
	}
	for _, tt := range tests {
		a, err := parseAnswer([]byte(tt.in))
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseAnswer(%q) error %v, want one saying %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseAnswer(%q): %v", tt.in, err)
		case a.Count != tt.count || a.State != tt.state || a.Lines != tt.lines:
			t.Errorf("ParseAnswer(%q) = %+v, want count %d state %q lines %d", tt.in, a, tt.count, tt.state, tt.lines)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"count":1,"state":"created","lines":3}`, `[{"count":0}]`, `[]`, `{"count":"2"}`, "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := parseAnswer(b)
		if err != nil {
			return
		}
		if a.Count < 0 || a.Count >= 1 && a.State == "" || a.Lines < -1 {
			t.Fatalf("ParseAnswer(%q) = %+v: an answer the contract does not allow", b, a)
		}
	})
}

func TestParseProbeURL(t *testing.T) {
	t.Parallel()
	q := Question{Kind: spec.Receipt, Code: "SKD-ABC-0001", Event: "CREATE_RECEIVABLE_DOC", RequestID: "id/1 2"}
	tests := []struct {
		tmpl, want, err string
	}{
		{"http://h/debug/{kind}s/{code}", "http://h/debug/receipts/SKD-ABC-0001", ""},
		{"https://h/d?kind={kind}&code={code}&event={event}&id={requestId}", "https://h/d?kind=receipt&code=SKD-ABC-0001&event=CREATE_RECEIVABLE_DOC&id=id%2F1+2", ""},
		{"http://h/{requestId}", "http://h/id%2F1%202", ""},
		{"http://h/x/{invoiceCode}?c={code}", "http://h/x/?c=SKD-ABC-0001", ""},
		{"http://h/{nope}", "", "unknown placeholder {nope}"},
		{"http://h/{code", "", "a { with no }"},
		{"http://h/code}", "", "a } with no {"},
		{"ftp://h/{code}", "", "http:// or https://"},
		{"/debug/{code}", "", "http:// or https://"},
		{"http://h/debug/{kind}", "", "no {code}"},
		{"http://h/{code}#x", "", "fragment"},
		// The sender's values never choose the host the probe's headers go to.
		{"http://{code}.debug.internal/x", "", "{code} in the host"},
		{"http://h:{code}/", "", "{code} in the host"},
		{"http://{requestId}@h/{code}", "", "{requestId} in the host"},
		// A space in the template's query went into the request line as
		// it was: the debug endpoint's server answered 400, which read as
		// the probe's failure. One in the path made the "ask again" curl
		// that curl refuses.
		{"http://h/d?code={code}&x=a b", "", "a space, which no request line can carry: write it %20"},
		{"http://h/d b/{code}", "", "a space, which no request line can carry: write it %20"},
		{"http://h/d%20b/{code}?x=a+b", "http://h/d%20b/SKD-ABC-0001?x=a+b", ""},
	}
	for _, tt := range tests {
		p, err := ParseURL(tt.tmpl, http.DefaultClient, nil)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseURL(%q) error %v, want one saying %q", tt.tmpl, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseURL(%q): %v", tt.tmpl, err)
		case p.url(q) != tt.want:
			t.Errorf("ParseURL(%q) asks %s, want %s", tt.tmpl, p.url(q), tt.want)
		}
	}
}

func FuzzParseProbeURL(f *testing.F) {
	for _, s := range []string{"http://h/{kind}/{code}", "https://h/?c={code}&e={event}", "http://h/{x}", "{"} {
		f.Add(s, "SKD-1")
	}
	f.Fuzz(func(t *testing.T, tmpl, code string) {
		p, err := ParseURL(tmpl, http.DefaultClient, nil)
		if err != nil {
			return
		}
		// Whatever the values, a value never breaks out of the part of the
		// URL it stands in: the scheme and the query's names stay.
		base, err := url.Parse(p.url(Question{Kind: spec.Invoice, Code: "X"}))
		if err != nil {
			t.Fatalf("template %q accepted, but makes no URL: %v", tmpl, err)
		}
		u, err := url.Parse(p.url(Question{Kind: spec.Invoice, Code: code}))
		if err != nil {
			return // a host made of the value: the request fails, said as the probe's error
		}
		names := func(u *url.URL) string {
			var ks []string
			for k := range u.Query() {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			return strings.Join(ks, "&")
		}
		inKey := regexp.MustCompile(`[?&][^=&]*\{`).MatchString(tmpl) // a placeholder naming a query parameter
		if u.Scheme != base.Scheme || u.Fragment != "" || !inKey && names(u) != names(base) {
			t.Fatalf("template %q with code %q makes %q", tmpl, code, u)
		}
	})
}

func TestHTTPProbe(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/held":
			if r.Header.Get("X-Debug-Token") != "s3cret" {
				http.Error(w, "no token", http.StatusForbidden)
				return
			}
			w.Write([]byte(`{"count":1,"state":"created","lines":2}`))
		case "/none":
			http.NotFound(w, r)
		case "/boom":
			http.Error(w, "database is locked", http.StatusInternalServerError)
		case "/slow":
			<-r.Context().Done()
		case "/wait":
			close(arrived)
			<-r.Context().Done()
		case "/huge":
			// A valid answer after more than whsim reads of one.
			w.Write([]byte(strings.Repeat(" ", maxAnswer) + `{"count":0}`))
		case "/accept":
			if r.Header.Get("Accept") != "application/vnd.api+json" {
				http.Error(w, "accept "+r.Header.Get("Accept"), http.StatusNotAcceptable)
				return
			}
			w.Write([]byte(`{"count":0}`))
		case "/host":
			if r.Host != "debug.internal" {
				http.Error(w, "host "+r.Host, http.StatusMisdirectedRequest)
				return
			}
			w.Write([]byte(`{"count":0}`))
		default:
			w.Write([]byte("<html>hello</html>"))
		}
	}))
	defer srv.Close()
	ask := func(code string) (Answer, error) {
		client := &http.Client{Timeout: time.Minute}
		if code == "slow" {
			client.Timeout = 200 * time.Millisecond
		}
		p, err := ParseURL(srv.URL+"/{code}", client, http.Header{"X-Debug-Token": {"s3cret"}})
		if err != nil {
			t.Fatal(err)
		}
		return p.Ask(context.Background(), Question{Kind: spec.Invoice, Code: code})
	}
	if a, err := ask("held"); err != nil || a.Count != 1 || a.Lines != 2 {
		t.Errorf("held: %+v, %v", a, err)
	}
	if a, err := ask("none"); err != nil || a.Count != 0 {
		t.Errorf("404: %+v, %v; want count 0", a, err)
	}
	for code, want := range map[string]string{"boom": "got 500, want 200 with a JSON object or 404: database is locked", "slow": "timeout", "page": `answered "<html>hello</html>": not JSON`, "huge": "more than 1 MiB"} {
		_, err := ask(code)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Reason, want) {
			t.Errorf("%s: %v, want a Error saying %q", code, err, want)
		}
	}
	// A redirect is not followed, whatever the client given (listen's
	// followed, carrying --probe-header's token to another host): where
	// it leads is said, a credential in it masked.
	var reached atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Store(true)
		w.Write([]byte(`{"count":0}`))
	}))
	defer elsewhere.Close()
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", elsewhere.URL+"/docs/X?token=s3cret")
		w.WriteHeader(http.StatusMovedPermanently)
	}))
	defer moved.Close()
	mp, _ := ParseURL(moved.URL+"/{code}", &http.Client{Timeout: time.Minute}, http.Header{"X-Debug-Token": {"t0k3n"}})
	_, err := mp.Ask(context.Background(), Question{Code: "X"})
	var pe *Error
	if !errors.As(err, &pe) || !strings.HasSuffix(pe.Reason, "/X got 301, a redirect to "+elsewhere.URL+"/docs/X?token=****: whsim follows none, give --probe the URL it leads to") {
		t.Errorf("redirect: %v, want an Error saying where it leads", err)
	}
	if reached.Load() {
		t.Errorf("the redirect was followed, the probe's headers sent to %s", elsewhere.URL)
	}
	// --probe-header 'Host: ...' reaches a debug endpoint behind a
	// virtual host, as -H does for the calls.
	hp, _ := ParseURL(srv.URL+"/{code}", http.DefaultClient, http.Header{"Host": {"debug.internal"}})
	if a, err := hp.Ask(context.Background(), Question{Code: "host"}); err != nil || a.Count != 0 {
		t.Errorf("Host header: %+v, %v; want count 0", a, err)
	}
	// The user's Accept header wins over whsim's default.
	ap, _ := ParseURL(srv.URL+"/{code}", http.DefaultClient, http.Header{"Accept": {"application/vnd.api+json"}})
	if a, err := ap.Ask(context.Background(), Question{Code: "accept"}); err != nil || a.Count != 0 {
		t.Errorf("Accept header: %+v, %v; want count 0", a, err)
	}
	// Ctrl-C while a Question is in flight is the run's interruption, not
	// the probe's error (which would exit 2 and blame the probe).
	ctx, cancel := context.WithCancel(context.Background())
	sp, _ := ParseURL(srv.URL+"/{code}", &http.Client{Timeout: time.Minute}, nil)
	go func() {
		<-arrived
		cancel()
	}()
	if _, err := sp.Ask(ctx, Question{Code: "wait"}); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want context.Canceled and no Error", err)
	}
	p, _ := ParseURL(srv.URL+"/{code}", http.DefaultClient, http.Header{"X-Debug-Token": {"s3cret"}})
	if cmd := p.Command(Question{Code: "held"}); strings.Contains(cmd, "s3cret") || !strings.Contains(cmd, `"X-Debug-Token: $PROBE_X_DEBUG_TOKEN"`) {
		t.Errorf("Command = %s, want the token as its variable", cmd)
	}
	// A credential in the template is masked wherever the probe is
	// shown, and a variable in its command.
	tp, err := ParseURL("http://127.0.0.1:1/{code}?token=t0k", http.DefaultClient, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Name(tp), "http://127.0.0.1:1/{code}?token=****"; got != want {
		t.Errorf("Name = %s, want %s", got, want)
	}
	if _, err := tp.Ask(context.Background(), Question{Code: "X"}); err == nil || strings.Contains(err.Error(), "t0k") {
		t.Errorf("Ask of a closed port: %v, want an error without the token", err)
	}
	if cmd := tp.Command(Question{Code: "X"}); cmd != `curl -sS -w '\n' 'http://127.0.0.1:1/X?token='"$PROBE_TOKEN"` {
		t.Errorf("Command = %s", cmd)
	}
}

// The question a probe's command asks carries the values whsim filled in
// as they are, a query parameter named like a credential (code, key)
// included: they are a document's, no secret of the user's, and the
// command asks about that document only with them. A credential the user
// wrote into the template is still a variable.
func TestHTTPProbeCommandKeepsTheDocument(t *testing.T) {
	t.Parallel()
	q := Question{Kind: spec.Receipt, Code: "SKD-X-0001", InvoiceCode: "", Event: "CREATE_RECEIVABLE_DOC", RequestID: "r-1"}
	for _, tt := range []struct{ tmpl, want string }{
		{"http://h:1/probe?kind={kind}&code={code}", `curl -sS -w '\n' 'http://h:1/probe?kind=receipt&code=SKD-X-0001'`},
		{"http://h:1/probe?kind={kind}&code={code}&token=t0k", `curl -sS -w '\n' 'http://h:1/probe?kind=receipt&code=SKD-X-0001&token='"$PROBE_TOKEN"`},
		{"http://h:1/probe?key={requestId}&sig=s1g", `curl -sS -w '\n' 'http://h:1/probe?key=r-1&sig='"$PROBE_SIG"`},
		{"http://h:1/probe?code=c0de&doc={code}", `curl -sS -w '\n' 'http://h:1/probe?code='"$PROBE_CODE"'&doc=SKD-X-0001'`},
		{"http://h:1/{kind}s/{code}?code=abc", `curl -sS -w '\n' 'http://h:1/receipts/SKD-X-0001?code='"$PROBE_CODE"`},
	} {
		p, err := ParseURL(tt.tmpl, http.DefaultClient, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Command(q); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.tmpl, got, tt.want)
		}
	}
}

func TestCmdProbe(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	q := Question{Kind: spec.Receipt, Code: "SKD-X-0001", Event: "CREATE_RECEIVABLE_DOC", RequestID: "r-1"}
	tests := []struct {
		cmd, want string // want: a word of the error, or the answer's state
	}{
		{`printf '[{"count":1,"state":"%s","kind":"%s"}]' created "$WHSIM_KIND"`, StateCreated},
		{`test "$WHSIM_KIND/$WHSIM_CODE/$WHSIM_EVENT/$WHSIM_REQUEST_ID" = receipt/SKD-X-0001/CREATE_RECEIVABLE_DOC/r-1 && echo '{"count":1,"state":"voided"}'`, StateVoided},
		{`echo 'Error: no such table: receipts' >&2; exit 1`, "exited 1: Error: no such table: receipts"},
		{`sleep 30`, "timeout, no answer within 300ms"},
		{`echo hello`, `printed "hello": not JSON`},
		{`true`, `printed "": nothing, want a JSON object with count (no row? count(*) answers one row, 0 for none)`},
		// A command that exits 0 after an error (psql -f, or reading its
		// SQL from stdin, without ON_ERROR_STOP; a script whose last
		// command succeeded) said why on stderr alone: the message keeps it.
		{`echo 'ERROR:  relation "receipts" does not exist' >&2`, `printed "": nothing, want a JSON object with count; on stderr: ERROR: relation "receipts" does not exist`},
		{`echo '{"count":'; echo 'ERROR:  canceling statement due to statement timeout' >&2`, `printed "{\"count\":": not JSON: unexpected end of JSON input at byte 9; on stderr: ERROR: canceling statement due to statement timeout`},
		// More than an answer: said so, not "nothing" or a parse error of
		// the first MiB.
		{`head -c 2000000 /dev/zero | tr '\0' ' '; echo '{"count":0}'`, "printed more than 1 MiB"},
		// A child left holding stdout: the answer is what the command
		// printed before it exited, not an error after a delay.
		{`(sleep 30 &); echo '{"count":1,"state":"created"}'`, StateCreated},
		{`kill -9 $$`, "killed by signal 9"},
	}
	for _, tt := range tests {
		// Only the command that never answers in time gets a short limit:
		// a busy machine may take a while to start a shell.
		p := &Cmd{Run: tt.cmd, Timeout: time.Minute}
		if strings.HasPrefix(tt.cmd, "sleep") {
			p.Timeout = 300 * time.Millisecond
		}
		a, err := p.Ask(context.Background(), q)
		var pe *Error
		switch {
		case tt.want == StateCreated || tt.want == StateVoided:
			if err != nil || a.State != tt.want {
				t.Errorf("%s: %+v, %v; want state %s", tt.cmd, a, err, tt.want)
			}
		case !errors.As(err, &pe) || !strings.Contains(pe.Error(), tt.want):
			t.Errorf("%s: %v, want a Error saying %q", tt.cmd, err, tt.want)
		}
	}
	// Ctrl-C before a Question starts is the run's interruption too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Cmd{Run: "true", Timeout: time.Minute}).Ask(ctx, q); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want context.Canceled and no Error", err)
	}
	c := (&Cmd{Run: `sqlite3 -json app.db "select 1"`}).Command(q)
	if want := `WHSIM_KIND='receipt' WHSIM_CODE='SKD-X-0001' WHSIM_EVENT='CREATE_RECEIVABLE_DOC' WHSIM_REQUEST_ID='r-1' sh -c 'sqlite3 -json app.db "select 1"'`; c != want {
		t.Errorf("Command = %s\nwant      %s", c, want)
	}
}

// A probe's error says which document it asked about: the number a
// template's ?code={code} filled in is no credential, though a parameter
// named code often is one; the template's own credentials stay masked.
func TestHTTPProbeErrorShowsTheDocument(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	for _, tt := range []struct{ tmpl, want, hidden string }{
		{srv.URL + "/debug?code={code}&token=s3cret", "/debug?code=CGFP-1&token=**** got 500", "s3cret"},
		{srv.URL + "/debug?key=k3y&c={code}", "/debug?key=****&c=CGFP-1 got 500", "k3y"},
		{strings.Replace(srv.URL, "://", "://u:pw@", 1) + "/{code}?sig={requestId}", "://u:xxxxx@", "pw@"},
		{srv.URL + "/{code}?code=x{code}", "/CGFP-1?code=**** got 500", "xCGFP"},
	} {
		p, err := ParseURL(tt.tmpl, http.DefaultClient, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Ask(context.Background(), Question{Kind: spec.Invoice, Code: "CGFP-1", RequestID: "r-9"})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.hidden) {
			t.Errorf("%s: error %v, want %q in it and no %q", tt.tmpl, err, tt.want, tt.hidden)
		}
	}
}

// TestCmdAnswerOnALoadedMachine: a command that answered within its time
// limit is its answer, however long a loaded machine holds whsim between
// the command's exit and the look at the limit (once the limit had
// passed by then, a command that printed its answer and exited 0 was
// called "timeout, no answer within").
func TestCmdAnswerOnALoadedMachine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	q := Question{Kind: spec.Receipt, Code: "SKD-X-0001", Event: "CREATE_RECEIVABLE_DOC", RequestID: "r-1"}
	for _, tt := range []struct{ cmd, want string }{
		{`echo '{"count":1,"state":"created"}'`, ""},
		{`echo 'Error: no such table: receipts' >&2; exit 1`, "exited 1: Error: no such table: receipts"},
	} {
		// The scheduler's pause: held until the limit has passed (an
		// event, not a sleep), after the command ended well within it.
		p := &Cmd{Run: tt.cmd, Timeout: 3 * time.Second, waited: func(ctx context.Context) { <-ctx.Done() }}
		a, err := p.Ask(context.Background(), q)
		switch {
		case tt.want == "" && (err != nil || a.Count != 1 || a.State != StateCreated):
			t.Errorf("%s: %+v, %v; want count 1, created", tt.cmd, a, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.cmd, err, tt.want)
		}
	}
}

// TestCmdAnswerOfAHeldReader: what a command printed before it exited is
// its answer, however long a loaded machine holds the reader of its
// output (after a second the pipes were closed under the reader, and the
// answer still in them was lost: "printed \"\": nothing").
func TestCmdAnswerOfAHeldReader(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	q := Question{Kind: spec.Receipt, Code: "SKD-X-0001", Event: "CREATE_RECEIVABLE_DOC", RequestID: "r-1"}
	// The scheduler's hold of the reader, until whsim has stopped waiting
	// for it (the second it gives a child that left the group) and ended
	// its reads: an event, so that every run takes the answer so. A sleep
	// stood in for it, which a loaded machine could outlast before the
	// second began, and the answer was then read the usual way.
	late := make(chan struct{})
	p := &Cmd{Run: `echo '{"count":1,"state":"created"}'`, Timeout: time.Minute,
		readersLate: func() { close(late) },
		// Bounded, so that a whsim that never stops waiting fails the
		// test below rather than hang it.
		readHeld: func() {
			select {
			case <-late:
			case <-time.After(time.Minute):
			}
		}}
	a, err := p.Ask(context.Background(), q)
	if err != nil || a.Count != 1 || a.State != StateCreated {
		t.Errorf("%+v, %v; want count 1, created", a, err)
	}
	select {
	case <-late:
	default:
		t.Error("whsim never stopped waiting for the held reader: the answer was not taken from the pipes")
	}
}

// A --probe-cmd is never run with a value that would read as code where
// users paste it: listen takes document numbers and requestIds from the
// traffic, and the documented probes put $WHSIM_CODE inside SQL quotes or
// a shell word. whsim's own numbers, and real ones, are asked.
func TestCmdRefusesValuesThatReadAsCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	p := &Cmd{Run: `touch ` + shellcmd.Quote(ran) + `; echo '{"count":0}'`, Timeout: time.Minute}
	tests := []struct {
		q    Question
		want string // "" when asked; else what the error says
	}{
		{Question{Kind: spec.Receipt, Code: "SKD-X-0001", RequestID: "c0a8e1b2-1d2e-4f3a-9b8c-7d6e5f4a3b2c"}, ""},
		{Question{Kind: spec.Receipt, Code: "SKD202610030173"}, ""},
		{Question{Kind: spec.Invoice, Code: "INV/2026/0001", InvoiceCode: "044001900111"}, ""},
		{Question{Kind: spec.Invoice, Code: "收-2026.01_A"}, ""},
		{Question{Kind: spec.Receipt, Code: "X'; DELETE FROM documents; --"},
			`WHSIM_CODE "X'; DELETE FROM documents; --" holds ', which a command could take as code`},
		{Question{Kind: spec.Receipt, Code: "X -o /tmp/x"}, `WHSIM_CODE "X -o /tmp/x" holds a space, which a command could take as code`},
		{Question{Kind: spec.Receipt, Code: "$(id)"}, `WHSIM_CODE "$(id)" holds $`},
		{Question{Kind: spec.Receipt, Code: "--output=x"}, `WHSIM_CODE "--output=x" starts with -`},
		{Question{Kind: spec.Invoice, Code: "", InvoiceCode: "1\"2"}, `WHSIM_INVOICE_CODE "1\"2" holds "`},
		{Question{Kind: spec.Receipt, Code: "SKD-1", RequestID: "r`x`"}, "WHSIM_REQUEST_ID \"r`x`\" holds `"},
		{Question{Kind: spec.Receipt, Code: "SKD\x1b]52;c;x\a"}, `WHSIM_CODE "SKD\x1b]52;c;x\a" holds \x1b`},
		// A path step up: curl http://store/docs/$WHSIM_CODE would reach
		// another resource than the document's.
		{Question{Kind: spec.Receipt, Code: "../admin/purge"}, `WHSIM_CODE "../admin/purge" holds .., which a command could take as code`},
		{Question{Kind: spec.Receipt, Code: "SKD/.."}, `WHSIM_CODE "SKD/.." holds ..`},
		{Question{Kind: spec.Receipt, Code: "SKD.1.2"}, ""},
	}
	for _, tt := range tests {
		_ = os.Remove(ran)
		_, err := p.Ask(context.Background(), tt.q)
		_, statErr := os.Stat(ran)
		var ue *UnsafeError
		switch {
		case tt.want == "" && (err != nil || statErr != nil):
			t.Errorf("%q: %v (ran: %v), want it asked", tt.q.Code, err, statErr == nil)
		case tt.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want an UnsafeError saying %q", tt.q.Code, err, tt.want)
		case tt.want != "" && statErr == nil:
			t.Errorf("%q: the command ran", tt.q.Code)
		}
	}
}

// countingProbeServer is a probe endpoint that holds nothing and counts
// the questions it was asked.
func countingProbeServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	asked := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(`{"count":0}`))
	}))
	t.Cleanup(srv.Close)
	return srv, asked
}

// A URL probe asks about a document from the traffic only at its own
// resource: a value a server could read as a step up or a separator in
// the path (escaped or not: servers resolve dot segments, and many decode
// %2F, or decode twice, before routing) is never sent there, with the
// reason; in the query, escaped whole, it is asked.
func TestHTTPProbeRefusesPathValuesReadAsAnotherResource(t *testing.T) {
	t.Parallel()
	srv, asked := countingProbeServer(t)
	inPath, err := ParseURL(srv.URL+"/debug/{kind}/{code}?id={requestId}", srv.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	inQuery, err := ParseURL(srv.URL+"/debug?kind={kind}&code={code}", srv.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		code string
		want string // "" when asked; else what the error says
	}{
		{"SKD-X-0001", ""},
		{"SKD.1.2", ""},
		{"收-2026 A_1", ""},
		{"x?y#z", ""}, // escaped: %3F, %23, within the segment
		{"..", `{code} ".." holds .., which the probe URL's path could read as another resource than the document's`},
		{".", `{code} "." is .`},
		{"../../admin", `{code} "../../admin" holds ..`},
		{"INV/2026/0001", `{code} "INV/2026/0001" holds /, which the probe URL's path could read as another resource than the document's (a server resolves . and .., and may decode %2F into /, or decode twice): put {code} in the query, where every value is escaped whole: not asked`},
		{`a\b`, `{code} "a\\b" holds \`},
		{"%2e%2e", `{code} "%2e%2e" holds %`},
		{"a\tb", `{code} "a\tb" holds \t`},
		{"a\x1b[2Jb", `{code} "a\x1b[2Jb" holds \x1b`},
	}
	for _, tt := range tests {
		q := Question{Kind: spec.Receipt, Code: tt.code, RequestID: "id/../1"}
		before := asked.Load()
		_, err := inPath.Ask(context.Background(), q)
		var ue *UnsafeError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q in the path: %v, want it asked", tt.code, err)
		case tt.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q in the path: %v, want an UnsafeError saying %q", tt.code, err, tt.want)
		case tt.want != "" && asked.Load() != before:
			t.Errorf("%q in the path: the probe was asked", tt.code)
		}
		if _, err := inQuery.Ask(context.Background(), q); err != nil {
			t.Errorf("%q in the query: %v, want it asked", tt.code, err)
		}
	}
}

// An invoice may have an empty data.code (the spec allows it; whsim send
// writes some): whsim knows it by its invoiceCode. A probe that names
// {code} (or $WHSIM_CODE) but not the invoiceCode would ask about "" (the
// collection's URL, a where clause matching nothing), and listen blamed
// the receiver, "BROKE ... holds nothing", for a document it may hold. It
// is not asked, saying why and what to add; a probe that names the
// invoiceCode, or a command that names neither variable (a script given
// both), is asked.
func TestInvoiceWithoutCodeAskedOnlyByItsInvoiceCode(t *testing.T) {
	t.Parallel()
	srv, asked := countingProbeServer(t)
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	touch := func(vars string) string {
		return `touch ` + shellcmd.Quote(ran) + `; : ` + vars + `; echo '{"count":0}'`
	}
	const want = `is empty (the invoice has no data.code; its invoiceCode is "04400190"), which leaves the probe nothing to ask by: name `
	noCode := Question{Kind: spec.Invoice, InvoiceCode: "04400190", Event: "CREATE_PURCHASE_ORDER_INVOICE"}
	withCode := Question{Kind: spec.Invoice, Code: "CG-1", InvoiceCode: "04400190"}
	for _, tt := range []struct {
		name, url, cmd string
		q              Question
		want           string // "" when asked
	}{
		{name: "{code} in the path", url: "/debug/{kind}/{code}", q: noCode, want: `{code} "" ` + want + `{invoiceCode} in the probe too: not asked`},
		{name: "{code} in the query", url: "/debug?code={code}", q: noCode, want: `{code} "" ` + want + `{invoiceCode}`},
		{name: "{code} and {invoiceCode}", url: "/debug?code={code}&invoiceCode={invoiceCode}", q: noCode},
		{name: "{invoiceCode} alone", url: "/debug/{invoiceCode}", q: noCode},
		{name: "{requestId} alone", url: "/debug/{requestId}", q: noCode},
		{name: "{code} of an invoice with one", url: "/debug/{code}", q: withCode},
		{name: "$WHSIM_CODE", cmd: touch(`"$WHSIM_CODE"`), q: noCode, want: `WHSIM_CODE "" ` + want + `$WHSIM_INVOICE_CODE in the probe too: not asked`},
		{name: "$WHSIM_CODE and $WHSIM_INVOICE_CODE", cmd: touch(`"$WHSIM_CODE" "$WHSIM_INVOICE_CODE"`), q: noCode},
		{name: "a script given both", cmd: touch(""), q: noCode},
	} {
		var p Probe
		if tt.url != "" {
			hp, err := ParseURL(srv.URL+tt.url, srv.Client(), nil)
			if err != nil {
				t.Fatal(err)
			}
			p = hp
		} else {
			p = &Cmd{Run: tt.cmd, Timeout: time.Minute}
		}
		_ = os.Remove(ran)
		before := asked.Load()
		_, err := p.Ask(context.Background(), tt.q)
		_, statErr := os.Stat(ran)
		wasAsked := asked.Load() != before || statErr == nil
		var ue *UnsafeError
		switch {
		case tt.want == "" && (err != nil || !wasAsked):
			t.Errorf("%s: %v (asked: %v), want it asked", tt.name, err, wasAsked)
		case tt.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an UnsafeError saying %q", tt.name, err, tt.want)
		case tt.want != "" && wasAsked:
			t.Errorf("%s: the probe was asked", tt.name)
		}
	}
}

// A command with a credential written in it shows it masked wherever
// whsim shows the command (its name, a failure's message), and the
// question printed to ask again reads the command from $PROBE_CMD; one
// reading its password from the environment is shown and printed as given.
func TestCmdCredentialShownMasked(t *testing.T) {
	q := Question{Kind: spec.Receipt, Code: "SKD-1", Event: "CREATE_RECEIVABLE_DOC", RequestID: "r1"}
	p := &Cmd{Run: `PGPASSWORD=s3cret psql -tAc "select 1" && exit 3`}
	if got := Name(p); got != `PGPASSWORD=xxxxx psql -tAc "select 1" && exit 3` {
		t.Errorf("Name = %q", got)
	}
	if got := p.Command(q); !strings.HasSuffix(got, ` sh -c "$PROBE_CMD"`) || strings.Contains(got, "s3cret") {
		t.Errorf("Command = %q, want it to read the command from $PROBE_CMD", got)
	}
	p.Run = `PGPASSWORD=s3cret sh -c 'echo oops; exit 3'`
	_, err := p.Ask(context.Background(), q)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "PGPASSWORD=xxxxx") {
		t.Errorf("Ask's error = %v, want the command masked", err)
	}

	plain := &Cmd{Run: `psql -tAc "select count(*) from docs where code='$WHSIM_CODE'"`}
	if got := Name(plain); got != plain.Run {
		t.Errorf("Name = %q, want the command as given", got)
	}
	if got := plain.Command(q); !strings.HasSuffix(got, " sh -c "+shellcmd.Quote(plain.Run)) {
		t.Errorf("Command = %q, want the command quoted", got)
	}
}

// answering is a probe that gives every question the one answer.
type answering Answer

func (a answering) Ask(context.Context, Question) (Answer, error) { return Answer(a), nil }
func (answering) Command(Question) string                         { return "probe" }

// A probe that holds any record of a document never sent is at fault,
// one record as much as two; and only a sample-shape invoice, which has
// no invoice number, is told to ask by {code} instead.
func TestAskNeverSent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a    Answer
		q    Question
		want string // a word of the error; "" for none
	}{
		{"none held", Answer{Count: 0}, Question{Kind: spec.Receipt, Code: "SKD1"}, ""},
		{"one held", Answer{Count: 1, State: StateCreated}, Question{Kind: spec.Receipt, Code: "SKD1"}, "does it ask about the document in {code}"},
		{"two held", Answer{Count: 2, State: StateCreated}, Question{Kind: spec.Receipt, Code: "SKD1"}, "want count 0"},
		{"a described invoice", Answer{Count: 1, State: StateCreated}, Question{Kind: spec.Invoice, Code: "C1", InvoiceCode: "I1"}, "does it ask about the document in {code}"},
		{"a sample-shape invoice", Answer{Count: 1, State: StateCreated}, Question{Kind: spec.Invoice, Code: "C1"}, "carries no invoice number"},
	} {
		err := AskNeverSent(t.Context(), answering(tt.a), tt.q)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// The probe's command, pasted into a terminal, printed the answer without
// a line break after it (a probe's JSON seldom ends in one), and the
// prompt landed on the answer's line. Run as printed in each shell a user
// pastes into, it prints the answer, then a line break.
func TestHTTPProbeCommandEndsItsLine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl: the command's shape is checked in TestHTTPProbeCommandKeepsTheDocument")
	}
	const answer = `{"count":1,"state":"created"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	p, err := ParseURL(srv.URL+"/probe?kind={kind}&code={code}", srv.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := p.Command(Question{Kind: spec.Receipt, Code: "SKD-X-0001"})
	ran := 0
	for _, shell := range []string{"sh", "bash", "zsh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		ran++
		out, err := exec.Command(path, "-c", cmd).Output()
		if err != nil {
			t.Fatalf("%s -c %s: %v", shell, cmd, err)
		}
		if string(out) != answer+"\n" {
			t.Errorf("%s -c %s printed %q, want the answer and a line break", shell, cmd, out)
		}
	}
	if ran == 0 {
		t.Skip("no sh, bash or zsh to run the command in")
	}
}

// What a probe printed, as a reason quotes it: on one line, cut after 200
// bytes at a character's start, never inside one, where the character's
// first bytes showed escaped (\xe8\xbf) as if the probe had printed them
// (psql's and MySQL's messages are often in the server's language).
func TestShorten(t *testing.T) {
	t.Parallel()
	han := strings.Repeat("错误：数据库连接失败", 8) // 30 bytes each
	for _, tc := range []struct{ name, in, want string }{
		{"short", "  no such table:\n\tinvoices ", "no such table: invoices"},
		{"cut between characters", strings.Repeat("x", 250), strings.Repeat("x", 200) + "…"},
		{"cut inside a character", han, han[:198] + "…"},
		{"controls escaped", "::error::x\x1b[31m", `\x3a:error::x\x1b[31m`},
	} {
		if got := shorten([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: shorten(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

package probe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/jsonerr"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// Question is what whsim asks a probe about one document.
type Question struct {
	Kind spec.Kind
	// Code is the document number: data.code of an invoice, the number
	// in a receipt's header (spec.FieldReceiptNumber). whsim's are drawn
	// from A-Z, 0-9 and '-'.
	Code string
	// InvoiceCode is the described invoice's invoiceCode, "" for others.
	InvoiceCode string
	// Event and RequestID are those of the call that created the document.
	Event, RequestID string
}

// KindWord is a document kind as a probe is told it: invoice or receipt.
func KindWord(k spec.Kind) string {
	if k == spec.Receipt {
		return "receipt"
	}
	return "invoice"
}

// NoneFound says that a probe found none of the documents asked about
// after settle, and what that likelier means than a receiver that lost
// them all: check's effects line and listen's exactly-once verdict say it.
func NoneFound(settle time.Duration) string {
	return fmt.Sprintf("the probe found none of them (settle %s): if the receiver holds them, it stores them more than %s after answering (a longer --settle waits for them), or the probe asks about other numbers than it keeps ({code} is data.code of an invoice, %s of a receipt) or another database", settle, settle, spec.FieldReceiptNumber)
}

// NotFoundEvery is NoneFound for an HTTP probe that answered 404 for
// every document: a URL template that matches no route of the
// receiver's gets the same 404 as a document it does not hold.
func NotFoundEvery(settle time.Duration) string {
	return fmt.Sprintf("the probe answered 404 for every one of them (settle %s): the probe itself may be wrong (a --probe URL template that matches no route of the receiver's gets 404 too: ask it about a document the receiver holds), or the receiver stores them more than %s after answering (a longer --settle waits for them), or it lost every one", settle, settle)
}

// NoneFoundOf is NoneFound for one kind (KindWord) while the probe found
// the other's.
func NoneFoundOf(kind string, settle time.Duration) string {
	code := "data.code of an invoice"
	if kind == "receipt" {
		code = spec.FieldReceiptNumber + " of a receipt"
	}
	return fmt.Sprintf("the probe found no %s of them, though others (settle %s): if the receiver holds them, the probe asks about other numbers than it keeps for %ss ({code} is %s) or another table", kind, settle, kind, code)
}

// States a probe answers for a document it holds.
const (
	StateCreated = spec.DocCreated
	StateAudited = spec.DocAudited
	StateVoided  = spec.DocVoided
)

// Answer is what a probe said the receiver holds for a document.
type Answer struct {
	// Count is how many records the receiver holds for the document.
	Count int
	// State is created, audited or voided; "" when Count is 0.
	State string
	// Lines is how many lines it stored, -1 when the probe does not say.
	Lines int
	// Raw is what came back, shortened, for reasons.
	Raw string
	// NotFound: an HTTP probe's answer was 404, which the contract reads
	// as count 0, and which a URL matching no route gets too.
	NotFound bool
}

// Probe asks what the receiver holds for a document.
type Probe interface {
	// Ask asks about one document. An error is the probe's, never the
	// receiver's: it could not be asked, or said nothing readable.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Command is a shell command that asks the same, for a reproduction.
	Command(q Question) string
}

// Error says the probe itself failed: the run cannot judge effects
// and ends (exit 2), and nothing is blamed on the receiver.
type Error struct {
	Probe  string // the probe as the user gave it
	Reason string // what came back
}

func (e *Error) Error() string {
	return fmt.Sprintf("probe %s: %s", e.Probe, e.Reason)
}

// AskNeverSent asks p about q, a document no one sent: any answer but count
// 0 is the probe's error, never a verdict on the receiver. A probe that
// ignores the document it is asked about (a count without its where
// clause, a variable misspelt) would otherwise pass, or fail, every
// document on what it holds of others.
func AskNeverSent(ctx context.Context, p Probe, q Question) error {
	a, err := p.Ask(ctx, q)
	if err != nil {
		return err
	}
	if a.Count != 0 {
		hint := fmt.Sprintf("does it ask about the document in {code} or $%s?", EnvCode)
		if q.Kind == spec.Invoice && q.InvoiceCode == "" {
			// The question of a sample-shape invoice: a probe finding
			// invoices by their invoice number alone finds every one
			// stored without.
			hint = fmt.Sprintf("an invoice in the sample shape carries no invoice number, so {invoiceCode} and $%s are empty for it: does the probe find invoices by them? Ask by {code} or $%s", envInvoiceCode, EnvCode)
		}
		return &Error{Probe: Name(p),
			Reason: fmt.Sprintf("asked about %s, a document never sent, it answered %q: want count 0 (%s)", q.Code, a.Raw, hint)}
	}
	return nil
}

// parseAnswer reads a probe's answer as the contract (docs/concepts.md,
// the probe contract) says it: a JSON object, or an array holding one
// object (as sqlite3 -json prints a row). count is required, a JSON
// number, whole, from 0; state is required when count is 1 or more, one
// of the three states as written; lines is optional, a number as count
// is. Other members are ignored. An answer outside the contract is the
// probe's error, said with what was wrong, never coerced into a verdict:
// a count "1" (a string) or a state "VOIDED" is a probe that needs a cast
// or lower(), and a member given twice is read differently by different
// readers.
func parseAnswer(b []byte) (Answer, error) {
	a := Answer{Lines: -1, Raw: shorten(b)}
	// A byte-order mark, as some Windows tools and editors write, is no
	// reason to refuse an answer.
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\ufeff")))
	if len(b) > 0 && b[0] == '[' {
		var rows []json.RawMessage
		if err := json.Unmarshal(b, &rows); err != nil {
			return a, fmt.Errorf("not JSON: %s", jsonErr(err, b))
		}
		// A query of the rows rather than their count prints none for a
		// document not held and one per record held (sqlite3 -json), and
		// one row per record is what a receiver storing twice shows.
		switch {
		case len(rows) == 0:
			return a, errors.New("an array of 0 values, want one object " + noRow)
		case len(rows) > 1:
			return a, fmt.Errorf("an array of %d values, want one object (a row per record? answer one row, count(*) as count)", len(rows))
		}
		b = rows[0]
	}
	if len(b) == 0 {
		return a, errors.New("nothing, want a JSON object with count")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		if !json.Valid(b) {
			return a, fmt.Errorf("not JSON: %s", jsonErr(err, b))
		}
		return a, errors.New("not a JSON object, want one with count")
	}
	if name, twice := memberTwice(b); twice {
		return a, fmt.Errorf("%q twice: readers differ on which one counts", name)
	}
	raw, ok := m["count"]
	if !ok {
		return a, errors.New("no count")
	}
	n, err := wholeNumber(raw)
	if err != nil {
		return a, fmt.Errorf("count %s: %v", raw, err)
	}
	a.Count = n
	if raw, ok := m["lines"]; ok && string(raw) != "null" {
		n, err := wholeNumber(raw)
		if err != nil {
			return a, fmt.Errorf("lines %s: %v", raw, err)
		}
		a.Lines = n
	}
	if a.Count == 0 {
		return a, nil
	}
	raw, ok = m["state"]
	if !ok || string(raw) == "null" {
		return a, fmt.Errorf("count %d and no state (want %s, %s or %s)", a.Count, StateCreated, StateAudited, StateVoided)
	}
	var st string
	if json.Unmarshal(raw, &st) != nil {
		return a, fmt.Errorf("state %s: want a string", raw)
	}
	switch st {
	case StateCreated, StateAudited, StateVoided:
		a.State = st
	default:
		return a, fmt.Errorf("state %s: want %s, %s or %s, as written (lower case, nothing around it)", raw, StateCreated, StateAudited, StateVoided)
	}
	return a, nil
}

// noRow is what to do about an answer of no row: sqlite3 -json prints
// nothing for a query of rows that finds none.
const noRow = "(no row? count(*) answers one row, 0 for none)"

// wholeNumber reads a count: a JSON number with no fractional part, from
// 0, or a string of its decimal digits alone ("12"), as node-postgres,
// MySQL drivers and ClickHouse print a 64-bit count(*): one way to write
// one number, so nothing is guessed. Any other string (" 1 ", "+1",
// "1e0", "01") is refused with what to do about it.
func wholeNumber(raw json.RawMessage) (int, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || !decimalDigits(s) {
			return 0, errors.New("a string that is not a count's digits alone, want a JSON number (cast it to an integer where the probe builds the answer, as count(*)::int)")
		}
		raw = json.RawMessage(s)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != float64(int64(f)) || f < 0 || f > 1e9 {
		return 0, errors.New("want a whole number from 0")
	}
	return int(f), nil
}

// decimalDigits reports whether s writes a whole number from 0 in
// decimal digits alone, without a leading zero: "0", "12", not "012".
func decimalDigits(s string) bool {
	if s == "" || len(s) > 10 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// memberTwice returns the first name the object b (valid JSON) holds twice
// among count, state and lines, the members the contract reads.
func memberTwice(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		name, _ := tok.(string)
		switch name {
		case "count", "state", "lines":
			if seen[name] {
				return name, true
			}
			seen[name] = true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", false
		}
	}
	return "", false
}

// jsonErr says err, an error of reading b as JSON, with where it was:
// whsim finds the place (jsonerr.FirstSyntaxError), as encoding/json's
// changed with Go 1.27.
func jsonErr(err error, b []byte) string {
	se := jsonerr.FirstSyntaxError(b)
	if se == nil {
		return err.Error()
	}
	msg := se.Msg
	// encoding/json quotes a byte past ASCII as the Latin-1 letter it would
	// be ('ÿ' for 0xff, 'ä' for the first byte of 中), which names a
	// character the probe never printed: say the character, or the byte
	// that is not UTF-8 (a probe printing UTF-16 or Latin-1).
	if i := int(se.Offset) - 1; se.AtByte && se.Byte >= utf8.RuneSelf && i < len(b) {
		said := fmt.Sprintf("byte 0x%02x, not UTF-8 (JSON is UTF-8: convert what the probe prints, as from UTF-16 or Latin-1)", se.Byte)
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			said = "character " + strconv.QuoteRune(r)
		}
		msg = "invalid " + said + " " + se.Context
	}
	return fmt.Sprintf("%s at byte %d", msg, se.Offset)
}

// shorten is what came back, on one line and short enough for a reason:
// cut at a character's start, as a cut inside one would show its first
// bytes escaped (\xe6\x95), as if the probe had printed them.
func shorten(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return termsafe.Text(s)
}

// opening is how an answer too long to read began, for a reason.
func opening(b []byte) string {
	if s := shorten(b); s != "" {
		return ": " + s
	}
	return ""
}

// placeholders are the names a probe template may hold, in braces.
var placeholders = []string{"kind", "code", "invoiceCode", "event", "requestId"}

func (q Question) value(name string) string {
	switch name {
	case "kind":
		return KindWord(q.Kind)
	case "code":
		return q.Code
	case "invoiceCode":
		return q.InvoiceCode
	case "event":
		return q.Event
	case "requestId":
		return q.RequestID
	}
	return ""
}

// httpProbe asks with a GET per Question. A 404 means the receiver holds
// nothing for the document.
type httpProbe struct {
	Client *http.Client
	// Header is added to every Question (a debug endpoint's token).
	Header http.Header
	// CurlTLS are curl flags for the client's TLS settings (-k, --cacert
	// FILE), for Command.
	CurlTLS []string
	tmpl    string
	parts   []tmplPart
}

// tmplPart is a literal or a placeholder, and where it stands.
type tmplPart struct {
	lit, name string
	query     bool
}

// ParseURL reads a --probe template: an http or https URL holding
// placeholders in braces, each escaped for where it stands. The probe asks
// with client's transport and time limit, and follows no redirect, however
// client was set: a followed one would carry the probe's headers (a debug
// endpoint's token) to wherever the answer points.
func ParseURL(tmpl string, client *http.Client, header http.Header) (*httpProbe, error) {
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	p := &httpProbe{Client: &noFollow, Header: header, tmpl: tmpl}
	query := false
	rest := tmpl
	for rest != "" {
		i := strings.IndexAny(rest, "{}?#")
		if i < 0 {
			p.parts = append(p.parts, tmplPart{lit: rest, query: query})
			break
		}
		if i > 0 {
			p.parts = append(p.parts, tmplPart{lit: rest[:i], query: query})
		}
		switch rest[i] {
		case '?', '#':
			if rest[i] == '#' {
				return nil, errors.New("a fragment (#) is never sent, leave it out")
			}
			query = true
			p.parts = append(p.parts, tmplPart{lit: "?", query: query})
			rest = rest[i+1:]
		case '}':
			return nil, fmt.Errorf("a } with no { at byte %d", len(tmpl)-len(rest)+i+1)
		case '{':
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				return nil, fmt.Errorf("a { with no } at byte %d", len(tmpl)-len(rest)+i+1)
			}
			name := rest[i+1 : i+j]
			if !slices.Contains(placeholders, name) {
				return nil, fmt.Errorf("unknown placeholder {%s} (want %s)", termsafe.Text(name), placeholderList())
			}
			if !query && inAuthority(tmpl[:len(tmpl)-len(rest)+i]) {
				// Under listen the values are the sender's: one would
				// choose the host the probe's headers (a debug endpoint's
				// token) are sent to.
				return nil, fmt.Errorf("{%s} in the host: a document's values would choose where the probe's questions, and their headers, go; put it in the path or the query", name)
			}
			p.parts = append(p.parts, tmplPart{name: name, query: query})
			rest = rest[i+j+1:]
		}
	}
	// A Question with every value filled in must make a URL whsim can GET.
	u, err := url.Parse(p.url(Question{Kind: spec.Invoice, Code: "X", InvoiceCode: "1", Event: "E", RequestID: "r"}))
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("want an http:// or https:// URL")
	case u.Host == "":
		return nil, errors.New("no host")
	case strings.Contains(tmpl, " "):
		// net/http writes a query's space into the request line as it is,
		// where it ends the target (a 400 that read as the probe's
		// failure), and curl refuses a URL with one: the "ask again"
		// command would not run.
		return nil, errors.New("a space, which no request line can carry: write it %20")
	case !slices.ContainsFunc(p.parts, func(t tmplPart) bool { return t.name == "code" || t.name == "invoiceCode" || t.name == "requestId" }):
		return nil, errors.New("no {code}: the probe would ask the same of every document")
	}
	return p, nil
}

// inAuthority reports whether a placeholder after the template's text
// before stands in the URL's host (or its port, or userinfo): after
// "://", before the path's first "/".
func inAuthority(before string) bool {
	_, after, ok := strings.Cut(before, "://")
	return ok && !strings.Contains(after, "/")
}

func placeholderList() string {
	var b strings.Builder
	for i, n := range placeholders {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{" + n + "}")
	}
	return b.String()
}

func (p *httpProbe) url(q Question) string {
	var b strings.Builder
	for _, t := range p.parts {
		switch {
		case t.name == "":
			b.WriteString(t.lit)
		case t.query:
			b.WriteString(url.QueryEscape(q.value(t.name)))
		default:
			b.WriteString(url.PathEscape(q.value(t.name)))
		}
	}
	return b.String()
}

// maxAnswer bounds what whsim reads of an answer: one document's counts.
const (
	maxAnswer     = 1 << 20
	maxAnswerText = "1 MiB"
)

// unsafePath returns why a value of q cannot stand in the URL's path,
// nil when it can. url() escapes each value for where it stands, so that
// none ends its segment or starts a query; but listen takes document
// numbers and requestIds from the traffic, and what a server makes of an
// escaped path is its own: "." and ".." are dot segments it resolves (to
// the parent resource, or a redirect), and many decode %2F and %5C into
// separators, or decode twice (%252e%252e is ".."), before routing. The
// document would be asked about at another resource than its own, and
// its answer judged as the document's. In the query every value is
// escaped whole and read as a value: nothing is refused there.
func (p *httpProbe) unsafePath(q Question) *UnsafeError {
	for _, t := range p.parts {
		if t.name == "" || t.query {
			continue
		}
		v := q.value(t.name)
		ue := &UnsafeError{Name: "{" + t.name + "}", Value: v, urlPath: true}
		switch {
		case v == ".":
			ue.What = "is ."
		case strings.Contains(v, ".."):
			ue.What = "holds .."
		default:
			i := strings.IndexFunc(v, func(r rune) bool { return r == '/' || r == '\\' || r == '%' || unicode.IsControl(r) })
			if i < 0 {
				continue
			}
			r, _ := utf8.DecodeRuneInString(v[i:])
			ue.What = "holds " + termsafe.Text(string(r))
		}
		return ue
	}
	return nil
}

func (p *httpProbe) Ask(ctx context.Context, q Question) (Answer, error) {
	a, err := p.ask(ctx, q)
	return p.masked(a, err)
}

// masked is an answer, and the error that quotes it, with the probe's
// credentials masked (termsafe.Credentials): a debug endpoint that echoes
// its request would have check's reasons, reports and job summary show
// the token its headers or its URL carry. The template's, not the URL
// asked: a document's value filled in for {code} is what the reason is
// about, though a parameter named code reads as a credential.
func (p *httpProbe) masked(a Answer, err error) (Answer, error) {
	creds := termsafe.Credentials(nil).AddHeaders(p.Header)
	if u, uerr := url.Parse(p.tmpl); uerr == nil {
		creds = creds.AddURL(u)
	}
	if len(creds) == 0 {
		return a, err
	}
	if raw, cut := strings.CutSuffix(a.Raw, "…"); cut {
		a.Raw = creds.String(raw, true) + "…"
	} else {
		a.Raw = creds.String(a.Raw, false)
	}
	if e, ok := err.(*Error); ok {
		masked := *e
		masked.Reason = creds.String(e.Reason, false)
		return a, &masked
	}
	return a, err
}

func (p *httpProbe) ask(ctx context.Context, q Question) (Answer, error) {
	if ue := p.unsafePath(q); ue != nil {
		return Answer{Lines: -1}, ue
	}
	names := func(name string) bool {
		return slices.ContainsFunc(p.parts, func(t tmplPart) bool { return t.name == name })
	}
	if ue := noCode(q, "{code}", "{invoiceCode}", names("code"), names("invoiceCode")); ue != nil {
		return Answer{Lines: -1}, ue
	}
	u := p.url(q)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		// Not err itself: a url.Error quotes the URL whole, a credential
		// in its query too.
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: "GET " + p.shown(q) + ": " + shortNetErr(err)}
	}
	for k, v := range p.Header {
		req.Header[k] = v
	}
	// Go sends req.Host, never a Host header: a debug endpoint behind a
	// virtual host needs it set, as -H does for the calls.
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	res, err := p.Client.Do(req)
	if err != nil {
		// Ctrl-C is the run's interruption (exit 130), not the probe's
		// fault.
		if ctx.Err() != nil {
			return Answer{Lines: -1}, ctx.Err()
		}
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: "GET " + p.shown(q) + ": " + shortNetErr(err)}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return Answer{Lines: -1}, ctx.Err()
	case err != nil:
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: "GET " + p.shown(q) + ": reading the answer: " + shortNetErr(err)}
	case res.StatusCode == http.StatusNotFound:
		return Answer{Lines: -1, Raw: "404", NotFound: true}, nil
	case res.StatusCode >= 300 && res.StatusCode < 400 && res.Header.Get("Location") != "":
		// whsim's client follows no redirect (a followed one would carry
		// the probe's headers elsewhere): say where it leads, a
		// credential in it masked.
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: fmt.Sprintf("GET %s got %d, a redirect to %s: whsim follows none, give --probe the URL it leads to",
			p.shown(q), res.StatusCode, redact(termsafe.Text(res.Header.Get("Location"))))}
	case res.StatusCode != http.StatusOK:
		why := fmt.Sprintf("GET %s got %d, want 200 with a JSON object or 404", p.shown(q), res.StatusCode)
		if s := shorten(body); s != "" {
			why += ": " + s
		}
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: why}
	case len(body) > maxAnswer:
		return Answer{Lines: -1}, &Error{Probe: p.Name(), Reason: fmt.Sprintf("GET %s answered more than %s, want one document's counts%s", p.shown(q), maxAnswerText, opening(body))}
	}
	a, err := parseAnswer(body)
	if err != nil {
		return a, &Error{Probe: p.Name(), Reason: fmt.Sprintf("GET %s answered %q: %v", p.shown(q), a.Raw, err)}
	}
	return a, nil
}

// VarPrefix starts the names of the variables a printed command reads a
// probe's credentials from ($PROBE_AUTHORIZATION): they are not the
// receiver's, which the same command reads from the names without it.
const VarPrefix = "PROBE_"

// Command is a curl command that asks the probe's question, as printed:
// a credential among the user's probe headers or in the URL given as a
// variable, PROBE_ before its name (check's commands read the probe's
// credentials from the same variables). -w '\n' ends the answer's line:
// a probe's JSON seldom ends in a line break, and pasted in a terminal
// the prompt landed on the answer's line.
func (p *httpProbe) Command(q Question) string {
	c := shellcmd.Curl{Flags: append([]string{"-sS", "-w", `\n`}, p.CurlTLS...), URL: p.url(q), Header: p.Header, NoBody: true,
		Vars: true, VarPrefix: VarPrefix, Plain: p.filledParams()}
	return c.String()
}

// filledParams are the template's query parameters whose value is one
// placeholder ({code}): the document's value, filled in by whsim, where a
// name such as code or key would otherwise read as a credential.
func (p *httpProbe) filledParams() []string {
	_, query, _ := strings.Cut(p.tmpl, "?")
	query, _, _ = strings.Cut(query, "#")
	var plain []string
	for _, kv := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if ok && len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' && !strings.ContainsAny(v[1:len(v)-1], "{}") {
			plain = append(plain, termsafe.QueryKey(k))
		}
	}
	return plain
}

// Name is the probe's URL template as whsim shows it, in messages,
// reports and the records a rerun reads: a credential in it (?token=)
// masked, as in every URL it prints.
func (p *httpProbe) Name() string { return redact(p.tmpl) }

// shown is the URL asked for q as messages print it: the template's
// credentials masked (redact), the document's values it filled in shown,
// though a parameter named code or key would read as a credential: the
// document number is what the message is about.
func (p *httpProbe) shown(q Question) string {
	t := redact(p.tmpl)
	var b strings.Builder
	query := false
	for {
		i := strings.IndexAny(t, "?{")
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		j := strings.IndexByte(t[i:], '}')
		switch {
		case t[i] == '?':
			query = true
			b.WriteByte('?')
			t = t[i+1:]
		case j < 0:
			b.WriteString(t[i:])
			return b.String()
		case !slices.Contains(placeholders, t[i+1:i+j]):
			b.WriteString(t[i : i+j+1])
			t = t[i+j+1:]
		default:
			name := t[i+1 : i+j]
			if query {
				b.WriteString(url.QueryEscape(q.value(name)))
			} else {
				b.WriteString(url.PathEscape(q.value(name)))
			}
			t = t[i+j+1:]
		}
	}
}

// redact masks a URL's password and its credential query values.
func redact(s string) string { return termsafe.URLString(s) }

// shortNetErr is a client error without Go's "Get \"url\": " wrapping.
func shortNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return "timeout, no answer in time"
	}
	return err.Error()
}

// Cmd runs a shell command per Question, with the Question in its
// environment; its standard output is the answer.
type Cmd struct {
	Shell string // "" means sh
	Run   string // the command, as the user gave it
	// Timeout bounds one Question; 0 means no bound.
	Timeout time.Duration
	// Env is the environment the command starts from; nil means whsim's.
	Env []string

	// waited, when set (by tests), runs once the command has ended, where
	// a loaded machine may hold this goroutine (a stand-in for the
	// scheduler); it gets the Question's context. readHeld runs where one
	// may hold the reader of the command's output, before it reads.
	// readersLate runs once whsim has stopped waiting for the readers
	// (a child that left the group holds the pipes) and has ended their
	// reads: a test holds its readHeld until then, so that what the pipes
	// hold is taken that way every run.
	waited      func(context.Context)
	readHeld    func()
	readersLate func()
}

// Environment variables a --probe-cmd command reads.
const (
	envKind        = "WHSIM_KIND"
	EnvCode        = "WHSIM_CODE"
	envInvoiceCode = "WHSIM_INVOICE_CODE"
	envEvent       = "WHSIM_EVENT"
	envRequestID   = "WHSIM_REQUEST_ID"
	// envMark is set to a value of each Question's own in the command's
	// environment, which its children inherit: whsim ends every process
	// carrying it once the Question is answered.
	envMark = "WHSIM_PROBE_RUN"
)

// newMark is a value no other Question of any whsim shares.
func newMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (q Question) env() []string {
	return []string{
		envKind + "=" + KindWord(q.Kind), EnvCode + "=" + q.Code, envInvoiceCode + "=" + q.InvoiceCode,
		envEvent + "=" + q.Event, envRequestID + "=" + q.RequestID,
	}
}

// UnsafeError says a Question holds a value a probe could take as more
// than a value, so the probe was not asked: a command as code, a URL's
// path as another resource than the document's. whsim's own values never
// do; listen takes document numbers and requestIds from the traffic, where
// a sender may put anything, and the probes users write paste $WHSIM_CODE
// inside SQL quotes or a shell word.
type UnsafeError struct {
	// Name and Value are the variable ({code} for a URL probe) and its
	// value (Error quotes it as Go does, control and bidi characters
	// escaped).
	Name, Value string
	What        string // the character, or what is wrong, as the message says it
	// urlPath is set when the value stands in a URL probe's path.
	urlPath bool
	// alt, when set, is how the probe would name the invoice instead
	// ({invoiceCode}, $WHSIM_INVOICE_CODE): the value is an invoice's
	// empty data.code (see noCode).
	alt string
}

func (e *UnsafeError) Error() string {
	if e.alt != "" {
		return fmt.Sprintf("%s %q %s, which %s: %s: not asked", e.Name, e.Value, e.What, e.Risk(), e.Remedy())
	}
	if e.urlPath {
		return fmt.Sprintf("%s %q %s, which %s (a server resolves . and .., and may decode %%2F into /, or decode twice): %s: not asked",
			e.Name, e.Value, e.What, e.Risk(), e.Remedy())
	}
	return fmt.Sprintf("%s %q %s, which %s (a quote ends the SQL string it is pasted into, a space splits a shell word): not asked",
		e.Name, e.Value, e.What, e.Risk())
}

// Risk says what the probe could make of the value, for a line that
// counts the documents not asked.
func (e *UnsafeError) Risk() string {
	if e.alt != "" {
		return "leaves the probe nothing to ask by"
	}
	if e.urlPath {
		return "the probe URL's path could read as another resource than the document's"
	}
	return "a command could take as code"
}

// Remedy says what the user can change so that such a value is asked,
// "" when nothing in the probe can: a URL probe's placeholder moves to the
// query, where every value is escaped whole.
func (e *UnsafeError) Remedy() string {
	if e.alt != "" {
		return "name " + e.alt + " in the probe too"
	}
	if e.urlPath {
		return "put " + e.Name + " in the query, where every value is escaped whole"
	}
	return ""
}

// noCode says why q cannot be asked by a probe that names the document's
// code (as code) but not its invoiceCode (as alt): an invoice whose
// data.code is empty, which the spec allows and whsim knows by its
// invoiceCode, would be asked about "" (a URL's path then names the
// collection, a where clause matches nothing), and the receiver blamed
// for holding nothing of a document it may hold. nil when it can be
// asked. (strconv.Quote escapes the sender's control and bidi
// characters: the reason is printed on a terminal.)
func noCode(q Question, code, alt string, namesCode, namesAlt bool) *UnsafeError {
	if q.Kind != spec.Invoice || q.Code != "" || q.InvoiceCode == "" || !namesCode || namesAlt {
		return nil
	}
	return &UnsafeError{Name: code, What: "is empty (the invoice has no data.code; its invoiceCode is " + strconv.Quote(q.InvoiceCode) + ")", alt: alt}
}

// unsafe returns why a value cannot be given to a command, nil when it
// can: letters and digits of any script, and - _ . / : inside, as
// document numbers and requestIds are written (SKD202610030173,
// INV/2026/0001, a UUID). A leading - would read as an option, and ..
// as a path's step up.
func (q Question) unsafe() *UnsafeError {
	for _, kv := range q.env() {
		name, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(v, "-") {
			return &UnsafeError{Name: name, Value: v, What: "starts with -"}
		}
		if strings.Contains(v, "..") {
			// A path step up, in a probe that pastes the value into a
			// URL's path or a file name: another resource than the
			// document's.
			return &UnsafeError{Name: name, Value: v, What: "holds .."}
		}
		for _, r := range v {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:", r) {
				continue
			}
			what := "holds " + termsafe.Text(string(r))
			if r == ' ' {
				what = "holds a space"
			}
			return &UnsafeError{Name: name, Value: v, What: what}
		}
	}
	return nil
}

func (p *Cmd) Ask(ctx context.Context, q Question) (Answer, error) {
	if ue := q.unsafe(); ue != nil {
		return Answer{Lines: -1}, ue
	}
	// A command that names neither variable (a script reading them) is
	// asked: it is given both, as the contract says.
	if ue := noCode(q, EnvCode, "$"+envInvoiceCode, strings.Contains(p.Run, EnvCode), strings.Contains(p.Run, envInvoiceCode)); ue != nil {
		return Answer{Lines: -1}, ue
	}
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	fail := func(why string) (Answer, error) {
		return Answer{Lines: -1}, &Error{Probe: p.Shown(), Reason: why}
	}
	sh := p.Shell
	if sh == "" {
		sh = "sh"
	}
	cmd := exec.CommandContext(ctx, sh, "-c", p.Run)
	env := p.Env
	if env == nil {
		env = os.Environ()
	}
	// The mark every process the command starts inherits, unless it
	// clears its environment: how one that left the group (setsid, a
	// daemon's double fork) is still found and ended.
	mark := envMark + "=" + newMark()
	cmd.Env = append(append(slices.Clone(env), q.env()...), mark)
	// The command and whatever it starts are one process group, ended
	// together: on a timeout or Ctrl-C, and once the command has exited,
	// so that no child outlives its Question or holds its output open.
	ownGroup(cmd, mark)
	cmd.WaitDelay = time.Second
	// Pipes of whsim's own rather than exec's: Wait then returns when the
	// command exits, not when the last child holding them does.
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err.Error())
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return fail(err.Error())
	}
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	switch {
	case err != nil && ctx.Err() != nil:
		return Answer{Lines: -1}, ctx.Err()
	case err != nil:
		return fail(err.Error())
	}
	var out, errOut bytes.Buffer
	var over atomic.Bool
	read := make(chan struct{})
	go func() {
		defer close(read)
		if p.readHeld != nil {
			p.readHeld()
		}
		done := make(chan struct{})
		go func() {
			_, _ = io.Copy(&limited{&errOut, 4 << 10}, errR)
			close(done)
		}()
		// A command printing without end is cut off at the bound, with
		// its children: the answer is wrong whatever follows.
		if n, _ := io.CopyN(&out, outR, maxAnswer+1); n > maxAnswer {
			over.Store(true)
			killGroup(cmd, mark)
		}
		<-done
	}()
	err = cmd.Wait()
	if p.waited != nil {
		p.waited(ctx)
	}
	killGroup(cmd, mark)
	select {
	case <-read:
	case <-time.After(time.Second):
		// A child that left the group still holds the pipes: what was
		// printed before the command exited is its answer. The readers
		// stop at what the pipes hold now (Close would drop what a reader
		// a loaded machine held has not read yet), and that is taken.
		stopReading(outR)
		stopReading(errR)
		if p.readersLate != nil {
			p.readersLate()
		}
		<-read
		if !over.Load() {
			takeHeld(outR, &out, maxAnswer+1-int64(out.Len()))
			if int64(out.Len()) > maxAnswer {
				over.Store(true)
			}
		}
		takeHeld(errR, &limited{&errOut, 4 << 10}, 1<<20)
		outR.Close()
		errR.Close()
	}
	var ee *exec.ExitError
	// A command that exited on its own, with any status, answered: the
	// time limit ending since (a loaded machine may hold this goroutine
	// between the exit and this look) says nothing of it. Only one the
	// limit's kill ended got no answer in time.
	exited := err == nil || errors.As(err, &ee) && exitedItself(ee)
	switch {
	case !exited && ctx.Err() == context.DeadlineExceeded:
		return fail(fmt.Sprintf("timeout, no answer within %s", p.Timeout))
	case ctx.Err() != nil && (!exited || ctx.Err() != context.DeadlineExceeded):
		return Answer{Lines: -1}, ctx.Err()
	case over.Load():
		return fail(fmt.Sprintf("printed more than %s, want one document's counts%s", maxAnswerText, opening(out.Bytes())))
	case errors.As(err, &ee):
		why := fmt.Sprintf("exited %d", ee.ExitCode())
		if sig, ok := signalOf(ee); ok {
			why = "killed by signal " + sig
		}
		if s := shorten(errOut.Bytes()); s != "" {
			why += ": " + s
		} else if s := shorten(out.Bytes()); s != "" {
			why += ", printing " + s
		}
		return fail(why)
	case err != nil:
		return fail(err.Error())
	}
	a, err := parseAnswer(out.Bytes())
	if err != nil {
		why := fmt.Sprintf("printed %q: %v", a.Raw, err)
		// A command may exit 0 after an error and say why on stderr
		// alone (psql -f, or its SQL on stdin, without ON_ERROR_STOP; a
		// script whose last command succeeded): without it, the message
		// says only that nothing came.
		if s := shorten(errOut.Bytes()); s != "" {
			why += "; on stderr: " + s
		} else if len(bytes.TrimSpace(out.Bytes())) == 0 {
			why += " " + noRow
		}
		return fail(why)
	}
	return a, nil
}

// Command is the command with the Question's values set before it. A
// command holding a credential (Credentialed) is read from $PROBE_CMD
// (CmdVar), as a URL probe's credentials are read from variables: the
// command runs as printed where it is set, and shows no password.
func (p *Cmd) Command(q Question) string {
	var b strings.Builder
	for _, kv := range q.env() {
		k, v, _ := strings.Cut(kv, "=")
		if v == "" && k == envInvoiceCode {
			continue
		}
		b.WriteString(k + "=" + shellcmd.Quote(v) + " ")
	}
	b.WriteString("sh -c " + p.Word())
	return b.String()
}

// CmdVar is the variable a printed command reads a --probe-cmd holding a
// credential from. Not WHSIM_PROBE_CMD: whsim reads that one as
// --probe-cmd's setting, which would give every listen and check in the
// shell a probe.
const CmdVar = VarPrefix + "CMD"

// Word is the command as one word of a printed command line: quoted, or
// "$PROBE_CMD" when it holds a credential.
func (p *Cmd) Word() string {
	if p.Credentialed() {
		return `"$` + CmdVar + `"`
	}
	return shellcmd.Quote(p.Run)
}

// Credentialed says the command holds a credential written in it
// (shellcmd.MaskCredentials): a password in a URL, PGPASSWORD=..., an
// Authorization header.
func (p *Cmd) Credentialed() bool {
	_, found := shellcmd.MaskCredentials(p.Run)
	return found
}

// Shown is the command as whsim shows it in messages and reports: its
// credentials masked.
func (p *Cmd) Shown() string {
	shown, _ := shellcmd.MaskCredentials(p.Run)
	return shown
}

// limited keeps the first n bytes written and drops the rest, so that a
// command printing without end cannot fill memory.
type limited struct {
	w *bytes.Buffer
	n int
}

func (l *limited) Write(b []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// Name is the probe as whsim shows it: the URL template or the command,
// a credential in either masked.
func Name(p Probe) string {
	switch p := p.(type) {
	case *httpProbe:
		return p.Name()
	case *Cmd:
		return p.Shown()
	}
	return "probe"
}

// HeaderNames are the names of the headers a URL probe adds (--probe-header),
// sorted: a report keeps them, never their values.
func HeaderNames(p Probe) []string {
	if hp, ok := p.(*httpProbe); ok {
		return slices.Sorted(maps.Keys(hp.Header))
	}
	return nil
}

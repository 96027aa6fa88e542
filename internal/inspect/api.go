package inspect

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

//go:embed ui
var uiFiles embed.FS

// Options build the inspector's handler.
type Options struct {
	Store *Store
	// Mask returns headers with credential values masked, for showing;
	// nil shows them as they are. Exports and replays use the real values;
	// the copy commands mask by shellcmd's rule either way.
	Mask func(http.Header) http.Header
	// Replay sends a captured call to url byte for byte and says what came
	// back; nil turns replay off.
	Replay func(ctx context.Context, rec *capture.Record, url string) Replayed
	// Origin is where calls were sent (http://127.0.0.1:8080), for the
	// curl and send commands and HAR URLs; "" is http://127.0.0.1:8080.
	Origin string
	// Source says what is shown (listen's URL, a file name), in the title.
	Source  string
	Version string // whsim's version, in HAR exports
	// Token is the session's secret: every /api/ request must carry it, as
	// the cookie the page gets (see tokenQuery) or as "Authorization:
	// Bearer <token>". "" makes newHandler draw one (see handler.Token).
	Token string
	// ForwardTo is listen's --forward-to URL, the replay box's first
	// target; "" leaves it to the last replay target of this run.
	ForwardTo string
	// MaxStreams bounds the event streams open at once (0: defaultMaxStreams).
	MaxStreams int
}

// defaultMaxStreams bounds the event streams open at once: a page keeps
// one per tab.
const defaultMaxStreams = 32

// tokenQuery is the query parameter of the page's URL that carries the
// token: GET /?token=... sets the session cookie and sends the browser
// to the page without it.
const tokenQuery = "token"

// Replayed is the answer to one replay.
type Replayed struct {
	URL          string      `json:"url"`
	Status       int         `json:"status"`
	LatencyMS    float64     `json:"latencyMs"`
	Headers      http.Header `json:"headers,omitempty"`
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
	Error        string      `json:"error,omitempty"`
}

// handler serves the page and the API.
type handler struct {
	opts     Options
	mux      *http.ServeMux
	streams  chan struct{}            // a slot per open stream
	millis   map[string]bool          // the spec's millisecond fields
	docPaths map[spec.Kind][][]string // where documents' numbers are
	loc      *time.Location           // Asia/Shanghai

	sessionKey []byte // the per-process key of session cookies (see session.go)

	mu         sync.Mutex
	lastReplay string          // the last replay target of this run
	replaying  map[uint64]bool // the calls a replay is sending now
}

// newHandler returns the inspector's handler.
func newHandler(opts Options) *handler {
	if opts.Origin == "" {
		opts.Origin = "http://127.0.0.1:8080"
	}
	if opts.Token == "" {
		opts.Token = newToken()
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = defaultMaxStreams
	}
	h := &handler{opts: opts, mux: http.NewServeMux(), streams: make(chan struct{}, opts.MaxStreams), millis: millisFields(), loc: shanghai(), docPaths: docPaths(), sessionKey: newSessionKey()}
	ui, _ := fs.Sub(uiFiles, "ui")
	h.mux.Handle("GET /", h.page(http.FileServerFS(ui)))
	h.mux.HandleFunc("GET /api/info", h.info)
	h.mux.HandleFunc("GET /api/calls", h.list)
	h.mux.HandleFunc("GET /api/calls/{id}", h.detail)
	h.mux.HandleFunc("GET /api/calls/{id}/raw", h.raw)
	h.mux.HandleFunc("POST /api/calls/{id}/replay", h.replay)
	h.mux.HandleFunc("GET /api/stream", h.stream)
	h.mux.HandleFunc("GET /api/diff", h.diff)
	h.mux.HandleFunc("GET /api/export", h.export)
	return h
}

// newToken draws a session token: 26 base32 characters, 130 random bits.
func newToken() string {
	return rand.Text()
}

// Token is the session's token (Options.Token, or the one newHandler drew).
func (h *handler) Token() string { return h.opts.Token }

// authorized says r carries the session's token as a Bearer header, or,
// under a session's path, that session's cookie (see session.go).
func (h *handler) authorized(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		t, ok := strings.CutPrefix(a, "Bearer ")
		t = strings.TrimSpace(t)
		return ok && t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(h.opts.Token)) == 1
	}
	return h.sessionAuthorized(r)
}

// page serves the page; GET /?token=... with the right token draws a
// session and sends the browser to its page (/s/<id>/), with a cookie
// only that path of this port gets (HttpOnly, SameSite=Strict: a page on
// another site never sends it) and without the token in the address bar.
// A wrong token sends the browser to the page without one.
func (h *handler) page(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !q.Has(tokenQuery) {
			files.ServeHTTP(w, r)
			return
		}
		dir := "/"
		if subtle.ConstantTimeCompare([]byte(q.Get(tokenQuery)), []byte(h.opts.Token)) == 1 {
			var c *http.Cookie
			dir, c = h.newSessionCookie(r)
			http.SetCookie(w, c)
		}
		q.Del(tokenQuery)
		// dir starts with one slash and the rest has none in front:
		// "//host" would send the browser elsewhere.
		u := url.URL{Path: dir + strings.TrimLeft(r.URL.Path, "/"), RawQuery: q.Encode()}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
	})
}

// cleanPath is r with its path cleaned as ServeMux cleans it (no //, /./
// or /x/..). ServeMux answers a path it would clean with a redirect that
// keeps the query, so the token URL's ?token= went into its Location: one
// more copy of the token for a proxy's or the server's log and the
// browser's history. Cleaned here, the token URL reaches page, whose
// redirect drops the token.
func cleanPath(r *http.Request) *http.Request {
	p := r.URL.Path
	clean := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	if clean == p {
		return r
	}
	r2 := r.WithContext(r.Context())
	u := *r.URL
	u.Path, u.RawPath = clean, ""
	r2.URL = &u
	return r2
}

// ServeHTTP refuses requests a web page elsewhere could make through the
// user's browser (the API hands out captured calls and their credentials,
// a replay sends them, an export or search costs memory and CPU), then
// serves.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The API's refusals are {"error": ...}, as its other errors are, so
	// that a script reads why whatever refused it; the page's are text.
	refuse := func(msg string) {
		p := r.URL.Path
		if _, rest, ok := splitSession(p); ok {
			p = rest
		}
		if strings.HasPrefix(p, "/api/") {
			apiError(w, http.StatusForbidden, "%s", msg)
			return
		}
		http.Error(w, msg, http.StatusForbidden)
	}
	// A DNS name other than localhost pointing here is DNS rebinding.
	host := r.Host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	if net.ParseIP(strings.Trim(host, "[]")) == nil && host != "localhost" {
		refuse("inspector: Host must be an IP address or localhost")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		refuse("inspector: cross-origin request refused")
		return
	}
	if strings.Contains(r.URL.RawQuery, tokenQuery+"=") {
		r = cleanPath(r)
	}
	// A session's page and API live under /s/<id>/; what follows is
	// served as at the root, its cookie checked by authorized.
	r, _ = withSession(r)
	if strings.HasPrefix(r.URL.Path, "/api/") {
		// Browsers say where a request comes from, even for an <img> or a
		// form that sends no Origin: only the page itself (same-origin) or
		// the user (none: the address bar) may use the API. curl sends
		// nothing and is held to the token alone.
		switch site := r.Header.Get("Sec-Fetch-Site"); site {
		case "", "same-origin", "none":
		default:
			apiError(w, http.StatusForbidden, "inspector: request from another site (Sec-Fetch-Site: %s) refused", site)
			return
		}
		if !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="whsim inspector"`)
			apiError(w, http.StatusUnauthorized, "inspector: no session token: open the URL whsim printed (…/?token=…), or send \"Authorization: Bearer <token>\"")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.mux.ServeHTTP(w, r)
}

// summary is a call in a listing.
type summary struct {
	ID         uint64    `json:"id"`
	ReceivedAt time.Time `json:"receivedAt"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Event      string    `json:"event"`
	RequestID  *string   `json:"requestId"` // null: the body names none
	Size       int       `json:"size"`
	Status     int       `json:"status"`
	Verdict    string    `json:"verdict"`
	Findings   int       `json:"findings"`
	Flags      int       `json:"flags"`    // FLAG lines listen printed under it
	RepeatOf   uint64    `json:"repeatOf"` // the call before with its requestId, 0 none
	// TooLarge says the call's record is larger than whsim reads back: the
	// capture file has it, the inspector shows what it knew of it.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Unanswered says the sender never got Status, listen's answer (the
	// record's "unanswered"): a list must not show the call as answered.
	Unanswered bool `json:"unanswered,omitempty"`
	// BodyOverLimit is listen's --max-body when the body was over it and
	// not kept: Size, that of the empty record, is not the body's.
	BodyOverLimit int64 `json:"bodyOverLimit,omitempty"`
	// HeadBytes, of a request the HTTP server refused before listen read
	// it, is the bytes of its head that came: its Size, that of the empty
	// record, is not the request's.
	HeadBytes *int64 `json:"headBytes,omitempty"`
}

// appendSummary appends the JSON of summarize(c), without reflection: a
// stream sends one per call, and json.Marshal cost listen CPU under load.
func appendSummary(b []byte, c *call) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, c.ID, 10)
	b = append(b, `,"receivedAt":"`...)
	b = c.Record.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","method":`...)
	b = jsonstr.Append(b, c.Record.Method)
	b = append(b, `,"path":`...)
	b = jsonstr.Append(b, c.Record.ShownPath())
	b = append(b, `,"event":`...)
	b = jsonstr.Append(b, c.Event)
	b = append(b, `,"requestId":`...)
	if c.NoRequestID {
		b = append(b, "null"...)
	} else {
		b = jsonstr.Append(b, c.RequestID)
	}
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(c.Size), 10)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(c.Status()), 10)
	b = append(b, `,"verdict":`...)
	b = jsonstr.Append(b, c.Verdict)
	b = append(b, `,"findings":`...)
	b = strconv.AppendInt(b, int64(c.FindingCount), 10)
	b = append(b, `,"flags":`...)
	b = strconv.AppendInt(b, int64(len(c.Flags)), 10)
	b = append(b, `,"repeatOf":`...)
	b = strconv.AppendUint(b, c.RepeatOf, 10)
	if c.tooLarge != "" {
		b = append(b, `,"tooLarge":true`...)
	}
	if c.Record.Unanswered != nil {
		b = append(b, `,"unanswered":true`...)
	}
	if n := c.Record.BodyOverLimit; n > 0 {
		b = append(b, `,"bodyOverLimit":`...)
		b = strconv.AppendInt(b, n, 10)
	}
	if j := c.Record.Rejected; j != nil {
		b = append(b, `,"headBytes":`...)
		b = strconv.AppendInt(b, j.HeadBytes, 10)
	}
	return append(b, '}')
}

// requestIDOf is c's requestId for the API: nil when its body names none.
func requestIDOf(c *call) *string {
	if c.NoRequestID {
		return nil
	}
	return &c.RequestID
}

func summarize(c *call) summary {
	var head *int64
	if j := c.Record.Rejected; j != nil {
		head = &j.HeadBytes
	}
	return summary{
		ID: c.ID, ReceivedAt: c.Record.Time, Method: c.Record.Method, Path: c.Record.ShownPath(),
		Event: c.Event, RequestID: requestIDOf(c), Size: c.Size, Status: c.Status(),
		Verdict: c.Verdict, Findings: c.FindingCount, Flags: len(c.Flags), RepeatOf: c.RepeatOf,
		TooLarge: c.tooLarge != "", Unanswered: c.Record.Unanswered != nil, BodyOverLimit: c.Record.BodyOverLimit,
		HeadBytes: head,
	}
}

// detail is one call in full.
type detail struct {
	summary
	Remote       string         `json:"remote"`
	Query        string         `json:"query"`
	QueryParams  []harNameValue `json:"queryParams"`
	Headers      []harNameValue `json:"headers"`
	Body         string         `json:"body"` // the text when UTF-8, else base64
	BodyEncoding string         `json:"bodyEncoding"`
	Tree         *node          `json:"tree"` // nil when the body is not JSON
	// NoTree says why Tree is nil: "too-large" (more values than a tree
	// shows) or "not-json"; "" for a tree or an empty body.
	NoTree string `json:"noTree"`
	// Decoded names the Content-Encoding undone for the tree, the search
	// and the diff ("gzip"); "" when the body is the document as it came.
	Decoded  string      `json:"decoded"`
	Findings []findingAt `json:"findingList"`
	Response *message    `json:"response"`
	// Unanswered, when set, says the sender never got Response: the
	// finding listen made of it (capture.Unanswered's rule and reason).
	Unanswered *capture.Unanswered `json:"unanswered"`
	Forward    *forwarded          `json:"forward"`
	// Fault is what listen --fault did to the call, null when nothing.
	Fault *capture.Fault `json:"fault"`
	// FlagList are the FLAG lines listen printed under the call: "flags" in
	// a call's detail, where the summary has their count.
	FlagList []receiver.Flag `json:"flags"`
	// Deliveries are the calls with this requestId, Document those about
	// this document (DocNumber), oldest first, this one among them; empty
	// when it is alone.
	Deliveries []link `json:"deliveries"`
	Document   []link `json:"document"`
	// DeliveriesNotShown and DocumentNotShown count the links past the
	// lists' bound (maxRelated), older and newer; null when none was left
	// out. A search of the list for the requestId or the document number
	// finds them.
	DeliveriesNotShown *notShown `json:"deliveriesNotShown"`
	DocumentNotShown   *notShown `json:"documentNotShown"`
	DocNumber          string    `json:"docNumber"`
	BodyGone           bool      `json:"bodyGone"` // the body left memory and no capture file has it
	// CutShort is set when the body came cut short (over listen's
	// --max-body, its sender gone mid-body): the commands, the download
	// and a replay send the bytes recorded, not the call the sender made.
	CutShort *cutShort `json:"cutShort"`
	// BodyOverLimit is listen's --max-body when the body was over it and
	// not kept (0 when kept): the empty body shown is not the call's, so
	// it has no commands, as a call whose body is gone has none.
	BodyOverLimit int64 `json:"bodyOverLimit"`
	// NotKept says why the call has no body to download, compare or send
	// ("" when it has one, or bodyGone says why not): listen never read
	// it (rejected) or did not keep it (bodyOverLimit).
	NotKept string `json:"notKept"`
	// Rejected is set on a request listen never read: the HTTP server
	// refused its head, or listen's stop closed it as it arrived
	// (closedAtStop). Its head's bytes are not given: credentials in them
	// could not be masked.
	Rejected *rejectedView `json:"rejected"`
	File     string        `json:"file"` // the name the body downloads as
	// Curl and Send are the call as commands; "" when its body is gone.
	Curl string `json:"curl"`
	Send string `json:"send"`
	// NoSend says why Send is "" for a call Curl sends: whsim send would
	// fail on it or send another call (sendUnlike).
	NoSend string `json:"noSend"`
	// NoCommand says why Curl and Send are both "" for a call whose body
	// is kept: its record would not go out as the request it says
	// (capture.CheckReplayable), as whsim replay refuses it.
	NoCommand string `json:"noCommand"`
}

// rejectedView is what the record of a request listen never read says.
type rejectedView struct {
	Reason       string `json:"reason"`
	HeadBytes    int64  `json:"headBytes"`
	ClosedAtStop bool   `json:"closedAtStop"`
}

// cutShort is a body's declared length (Content-Length) and the bytes
// recorded of it.
type cutShort struct {
	Declared int64 `json:"declared"`
	Recorded int64 `json:"recorded"`
}

// findingAt is a finding and the tree path it is shown at (its own path or,
// for a member the body lacks, the nearest one it has).
type findingAt struct {
	validate.Finding
	At string `json:"at"`
}

// message is an answer: listen's, or the forwarded receiver's.
type message struct {
	Status       int            `json:"status"`
	Headers      []harNameValue `json:"headers"`
	Body         string         `json:"body"`
	BodyEncoding string         `json:"bodyEncoding"`
	// Decoded names the Content-Encoding undone to give Content, the
	// answer a compressed body holds (ContentEncoding "base64" when it
	// is not text); "" when the body is not compressed or does not
	// decode.
	Decoded         string `json:"decoded,omitempty"`
	Content         string `json:"content,omitempty"`
	ContentEncoding string `json:"contentEncoding,omitempty"`
}

// messageOf is an answer as the page shows it: its bytes, and what a
// Content-Encoding held, decoded as the HAR export has it.
func (h *handler) messageOf(status int, hd http.Header, body, encoding string, creds termsafe.Credentials) message {
	m := message{Status: status, Headers: h.headers(creds.Header(hd)), Body: body, BodyEncoding: encoding}
	if c, _ := contentOf(hd, body, encoding); c.Compression != nil {
		m.Decoded = strings.Join(capture.ContentCodings(hd), ", ")
		maskContent(&c, creds)
		m.Content, m.ContentEncoding = c.Text, c.Encoding
	}
	if len(creds) > 0 {
		// The body as its encoding holds it, its bytes in base64 masked
		// as a text one is (maskContent).
		c := harContent{Text: body}
		if encoding == capture.Base64 {
			c.Encoding = "base64"
		}
		maskContent(&c, creds)
		m.Body = c.Text
	}
	return m
}

// forwarded is what the receiver behind listen --forward-to answered.
type forwarded struct {
	message
	URL       string  `json:"url"`
	LatencyMS float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
	BodyCut   string  `json:"bodyCut,omitempty"`
}

func (h *handler) headers(hd http.Header) []harNameValue {
	if h.opts.Mask != nil {
		hd = h.opts.Mask(hd)
	}
	return harHeaders(hd)
}

func (h *handler) describe(c *call) detail {
	r := c.Record
	d := detail{
		summary: summarize(c), Remote: r.Remote, Query: r.Query, QueryParams: queryPairs(r.Query),
		Headers: h.headers(r.Headers), Body: r.Body, BodyEncoding: r.BodyEncoding,
		File: fmt.Sprintf("call-%d.json", c.ID),
	}
	if h.opts.Mask != nil {
		// The page's request line: masked as its query table, the
		// commands and listen's own line and JSON are.
		d.Query = termsafe.MaskQuery(r.Query)
	}
	if d.BodyEncoding == "" {
		d.BodyEncoding = capture.UTF8
	}
	d.Tree, d.NoTree = treeOf(c.content)
	d.Decoded = c.decoded
	h.dates(d.Tree)
	d.FlagList = append([]receiver.Flag{}, c.Flags...)
	deliveries, document := h.opts.Store.Related(c)
	d.Deliveries, d.DeliveriesNotShown = deliveries.Links, deliveries.NotShown
	d.Document, d.DocumentNotShown = document.Links, document.NotShown
	if d.Deliveries == nil {
		d.Deliveries = []link{}
	}
	if d.Document == nil {
		d.Document = []link{}
	}
	d.DocNumber, d.BodyGone = docKey(h.docPaths, c.Event, c.content), c.BodyGone()
	// Its body gone, the record has none to measure.
	d.BodyOverLimit, d.NotKept = r.BodyOverLimit, c.notKept()
	if j := r.Rejected; j != nil {
		d.Rejected = &rejectedView{Reason: j.Reason, HeadBytes: j.HeadBytes, ClosedAtStop: j.ClosedAtStop}
	}
	// Its body not kept, none of it was recorded: not cut short.
	if declared, recorded, short := r.CutShort(); short && !d.BodyGone && d.BodyOverLimit == 0 {
		d.CutShort = &cutShort{Declared: declared, Recorded: recorded}
	}
	at := attach(d.Tree, c.Findings)
	d.Findings = make([]findingAt, len(c.Findings))
	for i, f := range c.Findings {
		d.Findings[i] = findingAt{Finding: f, At: at[i]}
	}
	if u := r.Unanswered; u != nil {
		d.Unanswered = &capture.Unanswered{Rule: u.Rule, Reason: u.Reason}
	}
	// The call's credentials, masked in its headers and query, are
	// masked in what the receiver answered too (one behind --forward-to
	// may echo its request), as the HAR export masks them.
	var creds termsafe.Credentials
	if h.opts.Mask != nil {
		creds = termsafe.Credentials(nil).AddHeaders(r.Headers).AddURL(&url.URL{RawQuery: r.Query})
	}
	if resp := r.Response; resp != nil {
		m := h.messageOf(resp.Status, resp.Headers, resp.Body, resp.BodyEncoding, creds)
		d.Response = &m
	}
	if f := r.Forward; f != nil {
		d.Forward = &forwarded{
			message: h.messageOf(f.Status, f.Headers, f.Body, f.BodyEncoding, creds),
			URL:     f.URL, LatencyMS: f.LatencyMS, Error: f.Error, BodyCut: f.BodyCut,
		}
		if h.opts.Mask != nil {
			// --forward-to's credentials, as listen's own lines mask
			// them; an error quotes the URL it called.
			d.Forward.URL, d.Forward.Error = termsafe.URLString(f.URL), termsafe.URLsIn(f.Error)
		}
	}
	d.Fault = r.Fault
	// Its body gone, a command would not send the call: curl's went with
	// an empty body (a large one's read a file the page cannot download),
	// whsim send's read that file too. None is better than another call.
	if !d.BodyGone && d.NotKept == "" {
		if err := capture.CheckReplayable(cmp.Or(r.Method, http.MethodPost), r.Query, r.Headers); err != nil {
			// A hand-edited capture's CR LF in a header went into curl's
			// -H as it was, and curl sent the line after it as a header
			// of its own: a request nobody made, which replay refuses.
			d.NoCommand = err.Error()
		} else {
			d.Curl, d.Send = h.commands(c, d.File)
			if why := sendUnlike(c); why != "" {
				d.Send, d.NoSend = "", why
			}
		}
	}
	return d
}

// sentByClient are headers a client sets for itself: copying them into a
// command would be wrong or redundant. Proxy-Authorization is a proxy's
// credential, never the receiver's: replay and listen's forward do not
// send it on, and a copied command sent it masked, "Basic ****", a value
// nobody sent. A User-Agent is the sender's, as replay sends it: curl
// sent "curl/8.x" in the place of the ERP's.
var sentByClient = []string{
	"Host", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer",
	"Upgrade", "Proxy-Connection", "Accept-Encoding", "Proxy-Authorization",
}

// curlDefaults are headers curl sends of its own unless told: a call that
// came without one goes without (-H 'Name:' removes curl's).
var curlDefaults = []string{"User-Agent", "Accept"}

// commands are the call as a curl command and as a whsim send command,
// under shellcmd's one rule: every header of a captured call is the
// sender's, its credentials masked (signatures too: the inspector cannot
// tell one computed for this body from a fixed secret under such a name,
// and the page masks them everywhere); the URL's too. A body that is not
// UTF-8 text, or large, is sent from the call's file.
func (h *handler) commands(c *call, file string) (curl, send string) {
	r := c.Record
	u := h.opts.Origin + r.URLPath()
	if r.Query != "" {
		u += "?" + r.Query
	}
	hdr := make(http.Header, len(r.Headers))
	for k, vs := range r.Headers {
		if !slices.ContainsFunc(sentByClient, func(s string) bool { return strings.EqualFold(s, k) }) {
			hdr[k] = vs
		}
	}
	curlHdr := hdr.Clone()
	for _, name := range curlDefaults {
		if !hasHeader(r.Headers, name) {
			curlHdr[name] = []string{""}
		}
	}
	if c.Size > 0 && !hasHeader(r.Headers, "Content-Type") {
		// curl gives a body it sends a Content-Type of its own
		// (application/x-www-form-urlencoded); a call that came without
		// one goes without, as it came: -H 'Content-Type: ' removes curl's.
		curlHdr["Content-Type"] = []string{""}
	}
	cc := shellcmd.Curl{Method: r.Method, URL: u, Header: curlHdr, Body: c.body, NoBody: c.Size == 0,
		BodyFile: file, MaxInline: 64 << 10}
	if target := r.TargetPath(); strings.Contains(r.Query, "#") || target != r.URLPath() || notAPath(target) {
		// curl takes a '#' in its URL for a fragment's start and sends the
		// query cut there, and a URL cannot hold a path's byte the sender
		// wrote raw (a '#', a space, a byte above 0x7f), nor a target
		// that is no path ("*" of OPTIONS *: after the port, curl refuses
		// the URL): the request line's target goes as received
		// (credentials in it masked, as in the URL), the URL names the
		// server and path.
		cc.URL = h.opts.Origin + r.URLPath()
		if notAPath(target) {
			cc.URL = h.opts.Origin + "/"
		}
		if r.Query != "" {
			target += "?" + termsafe.MaskQuery(r.Query)
		}
		cc.Flags = append(cc.Flags, "--request-target", target)
	} else if dotSegment(target) {
		// curl squashes "/./" and "/../" as a browser does, and would ask
		// for another path than the call's.
		cc.Flags = append(cc.Flags, "--path-as-is")
	}
	switch r.Proto {
	// curl speaks HTTP/1.1 unless told: a receiver may answer the call's
	// own protocol otherwise (keep-alive, a chunked answer).
	case "HTTP/1.0":
		cc.Flags = append(cc.Flags, "--http1.0")
	case "HTTP/2.0":
		// Without TLS (h2c, as listen takes it) curl speaks HTTP/2 only
		// with prior knowledge; over TLS, as ALPN agrees.
		if strings.HasPrefix(h.opts.Origin, "https:") {
			cc.Flags = append(cc.Flags, "--http2")
		} else {
			cc.Flags = append(cc.Flags, "--http2-prior-knowledge")
		}
	}
	if c.Size > cc.MaxInline {
		cc.MaxInline = -1 // by the call's size: a body shed from memory is no shorter
	}
	su := h.opts.Origin + r.URLPath()
	if q, _ := withoutBusinessType(r.Query); q != "" {
		su += "?" + q
	}
	ws := shellcmd.Whsim{Command: "send", URL: su, Flags: []string{"--file", file}}
	if c.Event != "" {
		ws.Flags = append(ws.Flags, "--event", c.Event)
	}
	ws.Header = hdr.Clone()
	for k, vs := range ws.Header {
		// send's own Content-Type; another the call had goes as -H.
		if strings.EqualFold(k, "Content-Type") && slices.Equal(vs, []string{"application/json"}) {
			delete(ws.Header, k)
		}
	}
	return cc.String(), ws.String()
}

// notAPath says whether a request line's target was no path: the
// asterisk form, "*", that Go's server reads as the path "*".
func notAPath(target string) bool {
	return target != "" && !strings.HasPrefix(target, "/")
}

// hasHeader says whether h has a header named name in any case (a
// hand-made capture may say "content-type").
func hasHeader(h http.Header, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// sendUnlike says why whsim send --file would not send call c again, ""
// when it would: send POSTs the file's bytes as they are, as a JSON body
// (the download is the bytes sent, still coded), under the businessType of
// a spec event its --event names, which it adds to the URL (the event in
// another case goes in the spec's). The copied curl sends any call.
func sendUnlike(c *call) string {
	r := c.Record
	switch {
	case r.Method != http.MethodPost:
		return "whsim send makes a POST, and this call was a " + r.Method
	case notAPath(r.TargetPath()):
		return fmt.Sprintf("its request line asked for %q, no path, and whsim send asks for a URL's path", r.TargetPath())
	case capture.ContentCodings(r.Headers) != nil:
		return "its body was sent " + strings.Join(capture.ContentCodings(r.Headers), ", ") +
			"-coded (Content-Encoding), and whsim send --file sends the bytes of a JSON file as they are"
	case c.Event == "":
		return "the call had no businessType in its query, and whsim send adds its --event's"
	case !hasHeader(r.Headers, "Content-Type"):
		return "the call came with no Content-Type, and whsim send sends every call as application/json"
	}
	if _, ok := spec.Lookup(c.Event); !ok {
		return fmt.Sprintf("its businessType %q is no event of the spec, and whsim send sends only those, as the spec spells them", c.Event)
	}
	q, named := withoutBusinessType(r.Query)
	if named > 1 {
		// send adds one, its --event's: a query that named two (which
		// receivers read differently, listen's query-event finding) went
		// as another call, read alike everywhere.
		return fmt.Sprintf("its query names businessType %d times, and whsim send sends it once, its --event's", named)
	}
	if q != "" {
		// The command's --url carries the rest of the query, and send
		// checks it as any --url: one it refuses ("a;b", "%zz") made a
		// command that ended at once, nothing sent.
		if _, err := endpoint.ParseTarget("http://127.0.0.1/?" + q); err != nil {
			var te *endpoint.TargetError
			why := err.Error()
			if errors.As(err, &te) {
				why = te.Why
			}
			return "whsim send's --url refuses the call's query (" + why + ")"
		}
	}
	// send appends its --event's businessType, as the spec writes it,
	// after --url's query: a call that named it first, between two
	// parameters, or wrote it otherwise went as another query, which a
	// receiver that reads the raw query (or signs it) tells apart. A raw
	// '#' goes as %23, which --url must write.
	if sent := joinedQuery(q, spec.Query(c.Event)); sent != strings.ReplaceAll(r.Query, "#", "%23") {
		return fmt.Sprintf("whsim send would send its query as %q, not as it came (%q): it adds businessType, as the spec writes it, after the rest",
			termsafe.MaskQuery(sent), termsafe.MaskQuery(r.Query))
	}
	// send --file reads a file as its payloads: one JSON value is one
	// call; an array is one call each, and so is NDJSON; what is not
	// JSON, or nothing, it refuses.
	switch body := bytes.TrimSpace(c.body); {
	case c.Size == 0:
		return "its body is empty, and whsim send --file sends nothing of an empty file"
	case len(c.body) != c.Size:
		// Not in memory: what it holds is not known here.
	case len(body) > 0 && body[0] == '[' && json.Valid(body):
		return "its body is a JSON array, which whsim send --file sends as one call per element"
	case !json.Valid(body):
		return "its body is not one JSON value, which whsim send --file refuses, or sends as one call per line (NDJSON)"
	}
	return ""
}

// withoutBusinessType is a raw query less its businessType parameters,
// the rest as they came but a raw '#' escaped (in --url it would start a
// fragment and cut the query there), and how many it dropped: whsim send
// adds the call's own and refuses a URL that has one, so the copied send
// command's --url carries only the rest of the query the call reached the
// receiver with.
func withoutBusinessType(query string) (rest string, dropped int) {
	var kept []string
	for _, p := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err == nil && name == spec.QueryParam {
			dropped++
			continue
		}
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.ReplaceAll(strings.Join(kept, "&"), "#", "%23"), dropped
}

// joinedQuery is the query whsim send --url URL?rest sends with the
// businessType pair bt: the rest, then bt.
func joinedQuery(rest, bt string) string {
	if rest == "" {
		return bt
	}
	return rest + "&" + bt
}

// dotSegment says whether a path has a "." or ".." segment, which curl
// (and a browser, and Go's url.ResolveReference) removes.
func dotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func apiError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

func (h *handler) call(w http.ResponseWriter, r *http.Request, raw string) (*call, bool) {
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		apiError(w, http.StatusBadRequest, "call id %q: want a number", raw)
		return nil, false
	}
	c, err := h.opts.Store.Get(id)
	switch {
	case errors.Is(err, errNotFound):
		apiError(w, http.StatusNotFound, "call %d: not found", id)
		return nil, false
	case err != nil:
		apiError(w, http.StatusInternalServerError, "call %d: %v", id, err)
		return nil, false
	}
	return c, true
}

// filterOf reads event, verdict, status and q from the query. A verdict
// or status spelled so that no call can match it is refused rather than
// answered with nothing: a script's typo would read as "no such calls".
// An event is any name, since a capture may hold any. The search is
// trimmed, as the page trims its box: a document number pasted with a
// space around it is that number, and would otherwise find nothing.
func (h *handler) filterOf(q url.Values) (filter, error) {
	f := filter{Event: q.Get("event"), Verdict: q.Get("verdict"), Status: q.Get("status"), Query: strings.TrimSpace(q.Get("q")), Mask: h.opts.Mask}
	switch f.Verdict {
	case "", "valid", "warning", "invalid":
	default:
		return f, fmt.Errorf("verdict %q: want valid, warning or invalid", f.Verdict)
	}
	if f.Status != "" && !validStatusFilter(f.Status) {
		return f, fmt.Errorf("status %q: want a code (404) or a class (4xx)", f.Status)
	}
	return f, nil
}

// validStatusFilter says whether s is three digits, or a digit and xx.
func validStatusFilter(s string) bool {
	if len(s) != 3 || s[0] < '0' || s[0] > '9' {
		return false
	}
	if strings.EqualFold(s[1:], "xx") {
		return true
	}
	return s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9'
}

func (h *handler) info(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"source": h.opts.Source, "origin": h.opts.Origin, "replay": h.opts.Replay != nil, "events": spec.EventNames(),
		"last": h.opts.Store.Last(), "dropped": h.opts.Store.Dropped(), "replayTarget": h.replayTarget(),
	})
}

// replayTarget is the replay box's first URL: the last one replayed to in
// this run, else --forward-to's, else none.
func (h *handler) replayTarget() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lastReplay != "" {
		return h.lastReplay
	}
	return h.opts.ForwardTo
}

// nextHeader says where a listing that stopped at its bound of work goes
// on: ask again with before set to it.
const nextHeader = "Whsim-Next-Before"

// newestHeader says the newest call a listing looked at: a page's event
// stream goes on after it. The newest call listed is not enough: a search
// that found none within its bound of work left the page none to start
// after, and a stream from 0 sent the older calls that going on with the
// search (before) listed again.
const newestHeader = "Whsim-Newest"

// maxLimit bounds one page of a listing.
const maxLimit = 1000

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 200
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			apiError(w, http.StatusBadRequest, "limit %q: want 1 to %d", s, maxLimit)
			return
		}
		limit = n
	}
	var before uint64
	if s := q.Get("before"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			apiError(w, http.StatusBadRequest, "before %q: want a call id", s)
			return
		}
		before = n
	}
	f, err := h.filterOf(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, "%v", err)
		return
	}
	if last := h.opts.Store.Last(); before == 0 || before > last {
		before = last + 1
	}
	calls, next, err := h.opts.Store.Newest(r.Context(), before, f, limit)
	if r.Context().Err() != nil {
		return // the client went away
	}
	if err != nil {
		apiError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	if next > 0 && len(calls) < limit {
		// The search looked at all one request may: the rest is below next.
		w.Header().Set(nextHeader, strconv.FormatUint(next, 10))
	}
	w.Header().Set(newestHeader, strconv.FormatUint(before-1, 10))
	out := make([]summary, len(calls))
	for i, c := range calls {
		out[i] = summarize(c)
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) detail(w http.ResponseWriter, r *http.Request) {
	if c, ok := h.call(w, r, r.PathValue("id")); ok {
		writeJSON(w, http.StatusOK, h.describe(c))
	}
}

func (h *handler) raw(w http.ResponseWriter, r *http.Request) {
	c, ok := h.call(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	// Its body gone, an empty answer would read as an empty body, and
	// download as an empty file named for the call.
	if c.BodyGone() {
		apiError(w, http.StatusGone, "call %d: no body: %s", c.ID, bodyGoneNote)
		return
	}
	if why := c.notKept(); why != "" {
		apiError(w, http.StatusGone, "call %d: %s", c.ID, why)
		return
	}
	hd := w.Header()
	// Never rendered by the browser, whatever the body holds.
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("Content-Length", strconv.Itoa(len(c.body)))
	if r.URL.Query().Has("download") {
		hd.Set("Content-Disposition", fmt.Sprintf("attachment; filename=\"call-%d.json\"", c.ID))
	}
	w.Write(c.body)
}

func (h *handler) replay(w http.ResponseWriter, r *http.Request) {
	c, ok := h.call(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	if h.opts.Replay == nil {
		apiError(w, http.StatusNotImplemented, "replay is not available here")
		return
	}
	// A JSON body needs a CORS preflight, which this server never grants:
	// a form on another site cannot make the browser replay.
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		apiError(w, http.StatusUnsupportedMediaType, "send {\"url\": ...} as application/json")
		return
	}
	var req struct {
		URL string `json:"url"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "body: want {\"url\": \"http://...\"}: %v", err)
		return
	}
	// As whsim replay: the call's own businessType is added to the URL's
	// query, so one already there went out twice, most receivers reading
	// the URL's for every event.
	if _, err := endpoint.ParseHookTarget(req.URL); err != nil {
		apiError(w, http.StatusBadRequest, "url %v", err)
		return
	}
	// Its body gone, the record would go with an empty body: another call
	// than the one captured, which the receiver would answer as if it were.
	if c.BodyGone() {
		apiError(w, http.StatusGone, "call %d: not replayed: %s", c.ID, bodyGoneNote)
		return
	}
	if why := c.notKept(); why != "" {
		apiError(w, http.StatusGone, "call %d: not replayed: %s", c.ID, why)
		return
	}
	// One replay of a call at a time: a second press, or a second page of
	// the inspector, while the first is still sending would send the call
	// twice, and a receiver would see a duplicate nobody asked for.
	h.mu.Lock()
	if h.replaying[c.ID] {
		h.mu.Unlock()
		apiError(w, http.StatusConflict, "call %d is being replayed already: not sent again; wait for that replay's answer", c.ID)
		return
	}
	if h.replaying == nil {
		h.replaying = make(map[uint64]bool)
	}
	h.replaying[c.ID] = true
	h.lastReplay = req.URL
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.replaying, c.ID)
		h.mu.Unlock()
	}()
	writeJSON(w, http.StatusOK, h.opts.Replay(r.Context(), c.Record, req.URL))
}

func (h *handler) diff(w http.ResponseWriter, r *http.Request) {
	a, ok := h.call(w, r, r.URL.Query().Get("a"))
	if !ok {
		return
	}
	b, ok := h.call(w, r, r.URL.Query().Get("b"))
	if !ok {
		return
	}
	// A body gone compares as empty: two such calls read as the same
	// JSON, one against a body as a body removed.
	for _, c := range []*call{a, b} {
		if c.BodyGone() {
			apiError(w, http.StatusGone, "call %d: not compared: %s", c.ID, bodyGoneNote)
			return
		}
		if why := c.notKept(); why != "" {
			apiError(w, http.StatusGone, "call %d: not compared: %s", c.ID, why)
			return
		}
	}
	writeJSON(w, http.StatusOK, diffBodies(a, b))
}

func (h *handler) export(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format != "ndjson" && format != "har" {
		apiError(w, http.StatusBadRequest, "format %q: want ndjson or har", format)
		return
	}
	// Oldest first, as the capture has them, one call at a time: memory
	// stays that of one call whatever the capture's size.
	hd := w.Header()
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	var err error
	if format == "ndjson" {
		hd.Set("Content-Type", "application/x-ndjson")
		hd.Set("Content-Disposition", `attachment; filename="calls.ndjson"`)
		err = h.opts.Store.Each(r.Context(), func(c *call) error {
			if c.BodyGone() || c.tooLarge != "" {
				return nil // a record without its body would replay as another call
			}
			rec := *c.Record
			var err error
			if line, err = capture.Append(line[:0], &rec); err == nil {
				_, err = bw.Write(line)
			}
			return err
		})
	} else {
		hd.Set("Content-Type", "application/json; charset=utf-8")
		hd.Set("Content-Disposition", `attachment; filename="calls.har"`)
		head, _ := json.Marshal(harCreator{Name: "whsim", Version: h.opts.Version})
		fmt.Fprintf(bw, `{"log":{"version":"1.2","creator":%s,"entries":[`, head)
		first := true
		err = h.opts.Store.Each(r.Context(), func(c *call) error {
			if c.tooLarge != "" && c.Record.Method == "" {
				return nil // listed without its record: no request to describe
			}
			if !first {
				bw.WriteByte(',')
			}
			first = false
			var err error
			e := entryOf(c, h.opts.Origin)
			if c.BodyGone() {
				e.Comment = strings.TrimPrefix(e.Comment+"; "+bodyGoneNote, "; ")
			}
			if why := c.notKept(); why != "" {
				e.Comment = strings.TrimPrefix(e.Comment+"; "+why, "; ")
			}
			if c.BodyGone() || c.notKept() != "" {
				// No body to give: a postData of "" and a bodySize of 0
				// said the call came with an empty one (a HAR reader
				// that replays sent that); its size is said when known.
				e.Request.PostData = nil
				if c.Size == 0 {
					e.Request.BodySize = -1
				}
			}
			if line, err = marshalAppend(line[:0], e); err == nil {
				_, err = bw.Write(line)
			}
			return err
		})
		bw.WriteString("]}}\n")
	}
	if err == nil {
		bw.Flush()
	}
	// On an error the response stops short: a client sees a torn file
	// rather than a whole-looking one that lacks calls.
}

// bodyGoneNote says why an exported call has no body.
const bodyGoneNote = "the bodies left the inspector's memory and no file has them (listen --ui without --capture, or inspect of a pipe)"

// marshalAppend appends v's JSON, HTML left unescaped, as writeJSON writes it.
func marshalAppend(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // Encode's newline
}

// heartbeat keeps an idle stream's connection open through proxies.
const heartbeat = 15 * time.Second

// streamEvery batches a stream's events: under load a page gets a write
// every 20ms, not one per call, which would cost listen CPU; and a batch
// stays well inside listen's window even at 20,000 calls a second.
const streamEvery = 20 * time.Millisecond

// stream sends every call matching the filter after the last one the
// client saw (Last-Event-ID, or ?after=), then each new one as it comes:
// a reconnecting EventSource misses nothing.
//
// At most MaxStreams are open at once; an after past the newest call is
// refused (it would hide every call until the store caught up); a client
// that stops reading is cut off after streamWriteTimeout.
func (h *handler) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		apiError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	q := r.URL.Query()
	f, err := h.filterOf(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, "%v", err)
		return
	}
	var after uint64
	for _, s := range []string{r.Header.Get("Last-Event-ID"), q.Get("after")} {
		if s == "" {
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			apiError(w, http.StatusBadRequest, "after %q: want a call id", s)
			return
		}
		after = max(after, n)
	}
	if last := h.opts.Store.Last(); after > last {
		apiError(w, http.StatusBadRequest, "after %d: past the newest call (%d)", after, last)
		return
	}
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "5")
		apiError(w, http.StatusServiceUnavailable, "inspector: %d event streams are open already; close a tab", cap(h.streams))
		return
	}
	rc := http.NewResponseController(w)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) }
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	deadline()
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	bw := bufio.NewWriter(w)
	var buf []byte
	var missed uint64
	ctx := r.Context()
	for {
		if n := h.opts.Store.Dropped(); n > missed {
			// Calls the feed could not hand over take no id: no gap
			// shows them, and the page listed fewer calls than came.
			fmt.Fprintf(bw, "event: missed\ndata: {\"calls\":%d}\n\n", n)
			missed = n
		}
		if kept := h.opts.Store.Kept(); after+1 < kept {
			// Calls that left the window before this client saw them:
			// say so rather than skip them silently, and whether a
			// listing still has them (read back from the capture file),
			// which a page can offer, or they are gone from the inspector.
			listed := h.opts.Store.lowest() <= after+1
			fmt.Fprintf(bw, "id: %d\nevent: gap\ndata: {\"from\":%d,\"to\":%d,\"listed\":%t}\n\n", kept-1, after+1, kept-1, listed)
			after = kept - 1
		}
		calls, upTo, changed, err := h.opts.Store.After(ctx, after, f, 500)
		if err != nil {
			return
		}
		deadline()
		for _, c := range calls {
			buf = append(buf[:0], "id: "...)
			buf = strconv.AppendUint(buf, c.ID, 10)
			buf = append(buf, "\nevent: call\ndata: "...)
			buf = appendSummary(buf, c)
			buf = append(buf, "\n\n"...)
			bw.Write(buf)
		}
		if upTo > after && (len(calls) == 0 || calls[len(calls)-1].ID != upTo) {
			// Calls the filter left out: an event without data moves the
			// client's Last-Event-ID past them all the same.
			fmt.Fprintf(bw, "id: %d\n\n", upTo)
		}
		more := upTo > after
		after = upTo
		if bw.Buffered() > 0 {
			if bw.Flush() != nil || rc.Flush() != nil {
				return
			}
		}
		if more {
			continue // until a look finds nothing new
		}
		select {
		case <-changed:
			select {
			case <-time.After(streamEvery):
			case <-ctx.Done():
				return
			}
		case <-tick.C:
			deadline()
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// streamWriteTimeout cuts off a stream whose client stopped reading: its
// socket would otherwise stay open, with its buffers, for good.
const streamWriteTimeout = 30 * time.Second

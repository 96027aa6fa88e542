package check

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/termsafe"
)

// EffectsRecord is a failed effects document as a report keeps it: the
// probe's question and what it must answer, the calls sent for it in
// order (each with its answers and the command that sends it again), and
// what the probe said. check --rerun sends the calls again for a fresh
// document and asks the probe.
type EffectsRecord struct {
	Kind        string `json:"kind"` // invoice or receipt
	Code        string `json:"code"`
	InvoiceCode string `json:"invoiceCode,omitempty"`
	Event       string `json:"event"`
	RequestID   string `json:"requestId"`
	// WantState is the state the document must end in ("" any); WantLines
	// its lines (-1 any). It must be held once.
	WantState string        `json:"wantState,omitempty"`
	WantLines int           `json:"wantLines"`
	Calls     []EffectsCall `json:"calls"`
	Probe     ProbeRecord   `json:"probe"`
	// Load: one of the load check's documents, judged with all of them.
	Load bool `json:"load,omitempty"`
}

// EffectsCall is one call of an effects document's sequence.
type EffectsCall struct {
	Event        string      `json:"event"`
	Query        string      `json:"query"`
	Headers      http.Header `json:"headers"` // the user's credentials masked
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
	Copies       int         `json:"copies"`
	AtOnce       bool        `json:"atOnce,omitempty"`
	// NewRequestIDs: each copy after the first under a requestId of its
	// own (the requestId trap).
	NewRequestIDs bool `json:"newRequestIds,omitempty"`
	// Retry: delivered again as a sender's retry (the same requestId and
	// webhook-id, a fresh timestamp and signature).
	Retry bool `json:"retry,omitempty"`
	// Early: sent before its create; Again: an early call sent again
	// after the create because it got no 2xx.
	Early bool `json:"early,omitempty"`
	Again bool `json:"again,omitempty"`
	// Resign: it carried the run's signature, to be made afresh.
	Resign    bool         `json:"resign,omitempty"`
	Answers   []CallAnswer `json:"answers"`
	Reproduce string       `json:"reproduce"`
}

// CallAnswer is what one delivery got.
type CallAnswer struct {
	Status    int     `json:"status"`
	LatencyMS float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
}

// ProbeRecord is the probe a document was asked with and what it said. A
// URL template is kept (its header values are not, only their names); a
// command is kept to show, and never run from a report.
type ProbeRecord struct {
	URL     string   `json:"url,omitempty"`
	Headers []string `json:"headers,omitempty"`
	Cmd     string   `json:"cmd,omitempty"`
	// Answered is its last answer, Asked how many times it was asked.
	Answered string `json:"answered"`
	Asked    int    `json:"asked"`
	// Command is the question as a shell command.
	Command string `json:"command"`
}

// savedBody is a body --save-cases writes beside a case for its commands.
type savedBody struct {
	path string
	body []byte
}

// effectsRepro is the reproduction of an effects failure, one command per
// call in the order sent, then the probe's question, and the record a
// report keeps of it. Lines after the first are indented to sit under it
// in the summary. With --save-cases each call's body (or, for a signed
// call, its records) is written beside the case's file and the command
// reads it, rather than carrying it inline.
func (r *runner) effectsRepro(d *effDoc, saved *Case) (string, *EffectsRecord, []savedBody) {
	base := ""
	if r.cfg.SaveDir != "" {
		base = strings.TrimSuffix(filepath.Join(r.cfg.SaveDir, caseFile(saved)), ".ndjson")
	}
	rec := &EffectsRecord{Kind: probe.KindWord(d.q.Kind), Code: d.q.Code, InvoiceCode: d.q.InvoiceCode, Event: d.q.Event,
		RequestID: d.q.RequestID, WantState: d.want.state, WantLines: d.want.lines, Load: d.what == "under-load"}
	var files []savedBody
	var lines []string
	q, again := d.q, reproducedDoc(d)
	if again != nil {
		q.Code, q.InvoiceCode = again.code, again.invoiceCode
		lines = append(lines, "# "+renumberedNote)
	}
	for i, sc := range d.sent {
		file := ""
		if base != "" {
			file = fmt.Sprintf("%s.call%d.json", base, i+1)
		}
		shown := sc
		if again != nil {
			shown.req = again.renumber(sc.req)
			shown.retried = again.renumber(sc.retried)
		}
		cmd, f := r.callCommand(shown, file)
		if f != nil {
			files = append(files, *f)
		}
		lines = append(lines, cmd)
		body, enc := capture.EncodeBody(sc.req.Body)
		ec := EffectsCall{Event: sc.step.c.Event, Query: sc.req.Query, Headers: shellcmd.Masked(sc.req.Header, r.cfg.Header),
			Body: body, BodyEncoding: enc, Copies: sc.copies, AtOnce: sc.step.atOnce, NewRequestIDs: sc.step.c.NewRequestIDs, Retry: sc.retried != nil,
			Early: sc.step.early && !sc.again, Again: sc.again, Resign: r.cfg.Signer != nil, Reproduce: cmd}
		for _, a := range sc.answers {
			ca := CallAnswer{Status: a.Status, LatencyMS: attempt.MS(a.Latency)}
			if a.Status == 0 {
				ca.Error = attempt.ShortError(a)
			}
			ec.Answers = append(ec.Answers, ca)
		}
		rec.Calls = append(rec.Calls, ec)
	}
	if r.cfg.Settle > 0 {
		lines = append(lines, fmt.Sprintf("sleep %g", r.cfg.Settle.Seconds()))
	}
	rec.Probe = ProbeRecord{Answered: answerText(d), Asked: d.asks, Command: termsafe.Lines(r.cfg.Probe.Command(q))}
	if c, ok := r.cfg.Probe.(*probe.Cmd); ok {
		rec.Probe.Cmd = c.Shown()
	} else {
		rec.Probe.URL, rec.Probe.Headers = probe.Name(r.cfg.Probe), probe.HeaderNames(r.cfg.Probe)
	}
	lines = append(lines, rec.Probe.Command)
	return termsafe.Lines(strings.Join(lines, "\n  ")), rec, files
}

// callCommand is the command that sends one call of a document again:
// curl of its body (from file when set, which it returns to be written),
// or for a signed call whsim replay of its records, signed afresh (a
// signature is stale five minutes later); copies in a loop, in the
// background when they went at once, and a sender's retry after.
func (r *runner) callCommand(sc sentCall, file string) (string, *savedBody) {
	if r.cfg.Signer != nil {
		return r.replayCall(sc, file)
	}
	var saved *savedBody
	if file != "" {
		saved = &savedBody{path: file, body: sc.req.Body}
	}
	// A note goes at the end of the line: a comment in the middle would
	// end the loop or the retry after it.
	var notes []string
	curl := func(req *attempt.Request, file string) string {
		cmd, note := r.curl(req, file)
		if note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
		return cmd
	}
	cmd := curl(sc.req, file)
	switch {
	case sc.step.c.NewRequestIDs && sc.copies > 1:
		// Each copy's body differs in its requestId: one command each,
		// in the background for copies sent at once.
		var each []string
		for k := range sc.copies {
			one := curl(r.request(sc.step.c.Delivery(k), true), "")
			if sc.step.atOnce {
				one += " &"
			}
			each = append(each, one)
		}
		if sc.step.atOnce {
			each = append(each, "wait")
		}
		cmd = strings.Join(each, "\n  ")
	case sc.step.atOnce:
		cmd = fmt.Sprintf("for i in $(seq %d); do %s & done; wait", sc.copies, cmd)
	case sc.copies > 1:
		cmd = fmt.Sprintf("for i in $(seq %d); do %s; done", sc.copies, cmd)
	}
	if sc.retried != nil {
		cmd += "; " + curl(sc.retried, file)
	}
	if len(notes) > 0 {
		// Each note is a body not written; how to get them is said once,
		// last, where a command it names runs to the end of the line.
		cmd += "  # " + strings.Join(notes, "; ") + saveHint(r.cfg.SaveCommand, Effects)
	}
	return cmd, saved
}

// replayCall is whsim replay of a signed call's records: from file (its
// records, written) or inline on stdin.
func (r *runner) replayCall(sc sentCall, file string) (string, *savedBody) {
	n := sc.copies
	if sc.retried != nil {
		n++ // the retry is the same call again, signed afresh
	}
	rec := &capture.Record{Time: time.Unix(0, 0).UTC(), Remote: "whsim check", Method: http.MethodPost,
		Query: sc.req.Query, Headers: sc.req.Header}
	rec.SetURLPath(r.cfg.Target) // path decoded, as listen records it; the escapes check sent in rawPath
	rec.SetBody(sc.req.Body)
	var recs []byte
	var err error
	var b strings.Builder
	var saved *savedBody
	src := "-"
	if file != "" {
		file = strings.TrimSuffix(file, ".json") + ".ndjson"
		for range n {
			if recs, err = capture.Append(recs, rec); err != nil {
				return "", nil
			}
		}
		saved, src = &savedBody{path: file, body: recs}, shellcmd.Quote(shellcmd.NotOption(file))
	} else {
		rec.Headers = shellcmd.Masked(sc.req.Header, r.cfg.Header)
		if recs, err = capture.Append(nil, rec); err != nil {
			return "", nil
		}
		line := shellcmd.Quote(strings.TrimSuffix(string(recs), "\n"))
		if n > 1 {
			fmt.Fprintf(&b, "rec=%s; for i in $(seq %d); do printf '%%s\\n' \"$rec\"; done | ", line, n)
		} else {
			fmt.Fprintf(&b, "printf '%%s\\n' %s | ", line)
		}
	}
	cmd := shellcmd.Whsim{Command: "replay " + src, URL: r.cfg.Target.String(), Flags: replayTLS(r.cfg.CurlTLS),
		Tail: `--sign standard --secret "$WHSIM_REPLAY_SECRET"`, Vars: true}
	if sc.step.atOnce && sc.copies > 1 {
		cmd.Flags = append(cmd.Flags, "--concurrency", strconv.Itoa(sc.copies))
	}
	if sc.step.c.NewRequestIDs {
		cmd.Flags = append(cmd.Flags, "--new-request-id") // each copy under a requestId of its own
	}
	if src == "-" {
		cmd.Header = secretHeaders(r.cfg.Header)
	}
	b.WriteString(cmd.String())
	return b.String(), saved
}

// replayTLS are the run's TLS settings (curl's flags) as replay's flags.
func replayTLS(curlTLS []string) []string {
	var out []string
	for _, f := range curlTLS {
		switch f {
		case "-k":
			out = append(out, "--insecure")
		default:
			out = append(out, f)
		}
	}
	return out
}

// curl is a command that sends req again: the user's credentials masked
// (reports end up in CI logs), the call's own signature kept. file, when
// set, holds the body. note, when not "", is what the command cannot say
// of itself (a body it does not send), for the end of its line.
func (r *runner) curl(req *attempt.Request, file string) (cmd, note string) {
	user, own := shellcmd.Split(req.Header, r.cfg.Header)
	if _, ok := req.Header["Content-Type"]; !ok {
		own["Content-Type"] = []string{"application/json"}
	}
	c := shellcmd.Curl{Flags: append(append([]string{"-sS"}, r.cfg.CurlTLS...), "-o", "/dev/null", "-w", `%{http_code}\n`),
		Method: http.MethodPost, URL: attempt.URLFor(r.cfg.Target, req.Query), Header: user, Own: own, Vars: true,
		Body: req.Body, BodyFile: bodyFile, MaxInline: maxInlineBody}
	if file != "" {
		c.BodyFile, c.MaxInline = file, -1
	} else if !c.Inline() {
		note = bodyNotWritten(bodyFile, len(req.Body))
	}
	return c.String(), note
}

// reproducedDoc is the document number, and a described invoice's invoice
// number, a reproduction of d sends under when d's first call was meant
// to reach a document the receiver had not seen (out-of-order: an audit
// or void before the create): pasted after the run, that call would find
// the document the run created and read as fixed on a receiver still
// broken. The numbers are no run's, as a rerun's are (freshDoc), and so
// are the calls' requestIds (a receiver that remembers the run's would
// take them for re-deliveries); all are drawn from the document's
// requestId. Nil for every other document, whose reproduction sends what
// the run sent.
func reproducedDoc(d *effDoc) *reproDocument {
	if d.what != "out-of-order" {
		return nil
	}
	seed := reproSeed(d.q.RequestID + " " + d.q.Code)
	return &reproDocument{idSeed: binary.BigEndian.Uint64(seed), freshDocument: freshDocument{
		old: d.q.Code, code: retag(d.q.Code, seed[:16]), oldInvoice: d.q.InvoiceCode, invoiceCode: retag(d.q.InvoiceCode, seed[16:])}}
}

// reproDocument is a document's numbers in a reproduction, and the seed
// of its calls' requestIds.
type reproDocument struct {
	freshDocument
	idSeed uint64
}

// renumber is req under the reproduction's numbers: the document's, and a
// requestId drawn from its own (a retry, which shares its requestId, gets
// the same), which a signed call's webhook-id follows, as the run's did;
// nil for nil.
func (f *reproDocument) renumber(req *attempt.Request) *attempt.Request {
	if req == nil {
		return nil
	}
	again := *req
	again.Body = f.body(req.Body)
	if start, end := reqid.Find(again.Body); start >= 0 {
		again.RequestID = reqid.For(f.idSeed, string(again.Body[start:end]), 0)
		again.Body = reqid.Splice(again.Body, start, end, again.RequestID)
		if req.Header.Get("Webhook-Id") != "" {
			again.Header = req.Header.Clone()
			again.Header.Set("Webhook-Id", again.RequestID)
		}
	}
	return &again
}

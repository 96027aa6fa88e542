package check

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/termsafe"
)

// effectsRepro is the reproduction of an effects failure: the document's
// calls as curl commands, in the order they were sent, then the probe's
// question. Lines after the first are indented to sit under it in the
// summary.
func (r *runner) effectsRepro(d *effDoc) string {
	var lines []string
	for _, sc := range d.sent {
		cmd := r.curl(sc.req)
		switch {
		case sc.step.atOnce:
			cmd = fmt.Sprintf("for i in $(seq %d); do %s & done; wait", sc.copies, cmd)
		case sc.copies > 1:
			cmd = fmt.Sprintf("for i in $(seq %d); do %s; done", sc.copies, cmd)
		}
		lines = append(lines, cmd)
		if sc.retried != nil {
			lines = append(lines, r.curl(sc.retried))
		}
	}
	if r.cfg.Settle > 0 {
		lines = append(lines, fmt.Sprintf("sleep %g", r.cfg.Settle.Seconds()))
	}
	lines = append(lines, r.cfg.Probe.Command(d.q))
	return termsafe.Lines(strings.Join(lines, "\n  "))
}

// curl is a command that sends req again: the user's credentials masked
// (reports end up in CI logs), the call's own signature kept. A signature
// is only good for five minutes: a receiver that verifies needs the run's
// --secret and a fresh one after that.
func (r *runner) curl(req *attempt.Request) string {
	var b strings.Builder
	b.WriteString("curl -sS -o /dev/null -w '%{http_code}\\n' -X POST ")
	u := *r.cfg.Target
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "****")
	}
	b.WriteString(shellQuote(attempt.URLFor(&u, req.Query)))
	h := http.Header{"Content-Type": {"application/json"}}
	for k, vs := range req.Header {
		_, user := r.cfg.Header[k]
		h[k] = nil
		for _, v := range vs {
			if user && termsafe.SecretHeader(k) {
				v = termsafe.Mask(k, v)
			}
			h[k] = append(h[k], v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			b.WriteString(" -H " + shellQuote(k+": "+v))
		}
	}
	if len(req.Body) > maxInlineBody {
		fmt.Fprintf(&b, " --data-binary @case.json  # the %d-byte body: rerun with --save-cases DIR to get it", len(req.Body))
	} else {
		b.WriteString(" --data-binary " + shellQuote(string(req.Body)))
	}
	return b.String()
}

// appendEffects is the summary's line of the effects figures.
func appendEffects(b []byte, e *EffectsStats) []byte {
	b = fmt.Appendf(b, "\neffects: %d documents probed", e.Documents)
	switch {
	case e.LoadProbed == e.Load && e.Load > 0:
		b = fmt.Appendf(b, " (every one of the %d load documents answered 2xx)", e.Load)
	case e.Load > 0:
		b = fmt.Appendf(b, " (a random sample of %d of the %d load documents answered 2xx)", e.LoadProbed, e.Load)
	}
	if e.SlowestDoc != "" {
		b = fmt.Appendf(b, "; the slowest to settle was held as expected %s after its last call (%s, settle %s)", fmtMS(e.Slowest), e.SlowestDoc, e.Settle)
	} else {
		b = fmt.Appendf(b, "; every document that matched did so when first asked (settle %s)", e.Settle)
	}
	return append(b, '\n')
}

type effectsJSON struct {
	Documents  int     `json:"documents"`
	Load       int     `json:"loadDocuments"`
	LoadProbed int     `json:"loadProbed"`
	Slowest    float64 `json:"slowestMs"`
	SlowestDoc string  `json:"slowestDocument,omitempty"`
	Settle     float64 `json:"settleMs"`
}

func effectsOf(e *EffectsStats) *effectsJSON {
	return &effectsJSON{e.Documents, e.Load, e.LoadProbed, attempt.MS(e.Slowest), e.SlowestDoc, attempt.MS(e.Settle)}
}

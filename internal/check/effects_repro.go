package check

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/termsafe"
)

// effectsRepro is the reproduction of an effects failure: the document's
// calls as curl commands, in the order they were sent, then the probe's
// probe.Question. Lines after the first are indented to sit under it in the
// summary. saved is the result's case, whose body --save-cases writes.
func (r *runner) effectsRepro(d *effDoc, saved *Case) string {
	file := ""
	if r.cfg.SaveDir != "" {
		file = filepath.Join(r.cfg.SaveDir, caseFile(saved))
	}
	var lines []string
	for _, sc := range d.sent {
		body := ""
		if file != "" && bytes.Equal(sc.req.Body, saved.Body) {
			body = file
		}
		cmd := r.curl(sc.req, body)
		if body != "" && len(sc.req.Body) > maxInlineBody {
			// --save-cases writes capture records, not bare bodies:
			// replay sends the saved call again, byte for byte.
			u := *r.cfg.Target
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "****")
			}
			cmd = "whsim replay " + shellcmd.Quote(body) + " --url " + shellcmd.Quote(u.String()) + probe.CurlFlags(r.cfg.CurlTLS)
		}
		switch {
		case sc.step.c.NewRequestIDs && sc.copies > 1:
			// Each copy's body differs in its requestId: one command
			// each, in the background for copies sent at once.
			var each []string
			for k := range sc.copies {
				one := r.curl(r.request(sc.step.c.Delivery(k), true), "")
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
		lines = append(lines, cmd)
		if sc.retried != nil {
			lines = append(lines, r.curl(sc.retried, body))
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
// --secret and a fresh one after that. file, when set, holds the body.
func (r *runner) curl(req *attempt.Request, file string) string {
	var b strings.Builder
	b.WriteString("curl -sS" + probe.CurlFlags(r.cfg.CurlTLS) + " -o /dev/null -w '%{http_code}\\n' -X POST ")
	u := *r.cfg.Target
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "****")
	}
	b.WriteString(shellcmd.Quote(attempt.URLFor(&u, req.Query)))
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
			b.WriteString(" -H " + shellcmd.Quote(k+": "+v))
		}
	}
	switch {
	case len(req.Body) > maxInlineBody && file != "":
		b.WriteString(" --data-binary @" + shellcmd.Quote(file))
	case len(req.Body) > maxInlineBody:
		b.WriteString(" --data-binary @" + bodyFile + "  # " + notWritten(bodyFile, len(req.Body)))
	default:
		b.WriteString(" --data-binary " + shellcmd.Quote(string(req.Body)))
	}
	return b.String()
}

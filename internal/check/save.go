package check

import (
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/termsafe"
)

// Expectations a rerun holds a failed case to: the answer its check wants.
const (
	want2xx      = "2xx"
	want4xx      = "4xx"
	want2xxOr4xx = "2xx or 4xx"
)

// ResultsFile is the file in a --save-cases directory that holds the JSON
// line of every case and the summary (Reporter.SummaryLine), as --output
// json prints them: check --rerun DIR reads it.
const ResultsFile = "results.ndjson"

// sent is a case's request as it went out and as a reproduction needs it.
type sent struct {
	// header is what was sent: the content type, the user's headers (with
	// their credentials) and the case's own or the run's signature.
	header http.Header
	// resign: the call carried a correct signature of the run's secret,
	// which goes stale; a reproduction signs it afresh. A signature case
	// whose signature is wrong on purpose keeps its headers as they were.
	resign bool
	// want is the answer the case's check wants, "" for checks judged
	// over many calls (load, latency), which a rerun cannot repeat alone.
	want string
}

// sentRequest rebuilds what the runner sent for c: the run's signature is
// the one it made (the same id and body; the timestamp of now, which a
// reproduction replaces anyway).
func (r *Reporter) sentRequest(c *Case) sent {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range r.Header {
		h[k] = slices.Clone(v)
	}
	for k, v := range c.Header {
		h[k] = slices.Clone(v)
	}
	s := sent{header: h}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	switch {
	case r.Signer == nil:
	case c.Check == signature:
		// By its name, as the case was built: its signature, made when
		// the check began, may be stale by the time it is reported (a
		// slow receiver), which would make a valid case one wanting 4xx.
		s.resign = validSignatureCase(c.Name)
	default:
		r.Signer.Sign(h, webhookID(c), now(), c.Body)
		s.resign = true
	}
	s.want = wantOf(c.Check, s.resign)
	return s
}

// wantOf is what a failed case of check must get to be fixed; valid says
// a signature case carries a correct signature.
func wantOf(check string, valid bool) string {
	switch check {
	case acceptsValid, duplicates:
		return want2xx
	case rejectsMalformed, eventVsBody:
		return want4xx
	case outOfOrder, UnknownEvent:
		return want2xxOr4xx
	case signature:
		if valid {
			return want2xx
		}
		return want4xx
	}
	return ""
}

// signatureTolerance is how far off a webhook-timestamp Standard Webhooks
// receivers accept.
const signatureTolerance = 5 * time.Minute

// validSignature says whether h carries a Standard Webhooks signature of
// body with s's secret, timestamped within the tolerance of now: a call a
// receiver must accept. One v1 signature among several is enough.
func validSignature(s *sign.Signer, h http.Header, body []byte, now time.Time) bool {
	id, ts := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp")
	at, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil {
		return false
	}
	if d := now.Sub(time.Unix(at, 0)); d > signatureTolerance || d < -signatureTolerance {
		return false
	}
	want := s.Signature(id, at, body)
	for _, sig := range strings.Fields(h.Get("Webhook-Signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// secretHeaders are the user's credential headers, for -H.
func secretHeaders(user http.Header) http.Header {
	out := http.Header{}
	for k, vs := range user {
		if termsafe.SecretHeader(k) {
			out[k] = vs
		}
	}
	return out
}

// records are the capture records of a case: one per delivery, as
// whsim replay re-sends them. With mask, the user's credentials are
// masked (a command printed in a log); a saved file keeps them, as a
// capture does, and is private (0600).
func (r *Reporter) records(c *Case, s sent, at time.Time, mask bool) ([]byte, error) {
	h := s.header
	if mask {
		h = shellcmd.Masked(h, r.Header)
	}
	rec := &capture.Record{
		Time: at.UTC(), Remote: "whsim check", Method: http.MethodPost,
		Query: c.Query, Headers: h,
	}
	rec.SetURLPath(r.Target) // path decoded, as listen records it; the escapes check sent in rawPath
	rec.SetBody(c.Body)
	var b []byte
	for range max(c.Copies, 1) {
		var err error
		if b, err = capture.Append(b, rec); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// save writes a case's records to its file under SaveDir, and the bodies
// its commands read beside it: every call of a case that stands for many
// (load's), each as its own record.
func (r *Reporter) save(cc *CaseReport) error {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	var b []byte
	var err error
	if len(cc.calls) > 0 {
		for _, c := range cc.calls {
			one := sent{header: r.sentRequest(c).header}
			rec, err := r.records(c, one, now(), false)
			if err != nil {
				return err
			}
			b = append(b, rec...)
		}
	} else {
		// As its commands send it (reproduction), which replay them.
		c, s := r.reproduction(cc)
		if b, err = r.records(c, s, now(), false); err != nil {
			return err
		}
	}
	cc.File = filepath.Join(r.SaveDir, caseFile(cc.Case))
	if err := privateDir(r.SaveDir, filepath.Dir(cc.File)); err != nil {
		return err
	}
	if err := writePrivate(cc.File, b); err != nil {
		return err
	}
	for _, f := range cc.bodies {
		if err := writePrivate(f.path, f.body); err != nil {
			return err
		}
	}
	return nil
}

// privateDir makes dir (under root) for saved cases, refusing one that is
// a symlink: the files in it keep credentials, and a planted link would
// send them elsewhere.
func privateDir(root, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: the saved cases keep credentials, write them to a directory of your own", d)
		}
		if d == filepath.Clean(root) || d == filepath.Dir(d) {
			return nil
		}
	}
}

// writePrivate writes a file that may hold credentials: created 0600 and
// renamed into place, so it never goes through a symlink planted at path
// nor into a file another user can read.
func writePrivate(path string, b []byte) error {
	return atomicfile.Write(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// saveLine appends the case's JSON line to the directory's results file,
// which the first line creates 0600 under a temporary name and renames into
// place (a symlink or another file there is replaced, never written).
func (r *Reporter) saveLine(cc *CaseReport) error {
	if r.results == nil {
		f, err := os.CreateTemp(r.SaveDir, ".whsim-results-*.tmp")
		if err != nil {
			return err
		}
		if err := os.Rename(f.Name(), filepath.Join(r.SaveDir, ResultsFile)); err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
		r.results, r.saved = f, true
	}
	line, _ := json.Marshal(cc.Record())
	_, err := r.results.Write(termsafe.JSON(append(line, '\n')))
	return err
}

// SavedResults says the run wrote SaveDir's ResultsFile: it graded a case.
func (r *Reporter) SavedResults() bool { return r.saved }

// RemoveStaleResults removes the ResultsFile an earlier run left in dir,
// for a run that wrote none (it ended before its first case): --rerun of
// the directory, or a CI job keeping it, would read the earlier run's
// cases as this one's. An empty file would read as a run in which nothing
// failed, so it is removed rather than emptied. Nothing there (no file,
// no directory) is no error; a directory of that name is left alone.
func RemoveStaleResults(dir string) error {
	name := filepath.Join(dir, ResultsFile)
	fi, err := os.Lstat(name)
	if err != nil || fi.IsDir() {
		return nil
	}
	return os.Remove(name)
}

// replayCommand is the whsim replay command that sends a case again: from
// its --save-cases file, else from the record inline on stdin; concurrently
// for copies delivered at once; signed afresh when the call was signed.
func (r *Reporter) replayCommand(cc *CaseReport) string {
	c, s := r.reproduction(cc)
	copies := max(c.Copies, 1)
	var b strings.Builder
	src := ""
	switch {
	case cc.File != "":
		src = shellcmd.Quote(shellcmd.NotOption(cc.File))
	case len(c.Body) > maxInlineBody:
		src = caseFileHolder
	default:
		rec, err := r.records(&Case{Query: c.Query, Body: c.Body}, s, time.Unix(0, 0), true)
		if err != nil {
			return ""
		}
		if copies > 1 {
			fmt.Fprintf(&b, "rec=%s; for i in $(seq %d); do printf '%%s\\n' \"$rec\"; done | ", shellcmd.Quote(strings.TrimSuffix(string(rec), "\n")), copies)
		} else {
			fmt.Fprintf(&b, "printf '%%s\\n' %s | ", shellcmd.Quote(strings.TrimSuffix(string(rec), "\n")))
		}
		src = "-"
	}
	cmd := shellcmd.Whsim{Command: "replay " + src, URL: r.Target.String(), Vars: true, Flags: replayTLS(r.CurlTLS)}
	if c.AtOnce && copies > 1 {
		cmd.Flags = append(cmd.Flags, "--concurrency", strconv.Itoa(copies))
	}
	if c.NewRequestIDs {
		cmd.Flags = append(cmd.Flags, "--new-request-id")
	}
	// replay's exit status then says what the check says: 0 once fixed.
	switch cc.sent.want {
	case want4xx:
		cmd.Flags = append(cmd.Flags, "--expect-status", "4xx")
	case want2xxOr4xx:
		cmd.Flags = append(cmd.Flags, "--expect-status", "2xx,4xx")
	}
	if src == "-" || src == caseFileHolder {
		// The inline record holds the user's credentials masked, as does
		// a CASE_FILE written from the report's request: -H gives them to
		// replay (which replaces a captured header) from their variables,
		// as the curl of a large unsigned body does.
		cmd.Header = secretHeaders(r.Header)
	}
	if cc.sent.resign {
		cmd.Tail = `--sign standard --secret "$WHSIM_REPLAY_SECRET"`
	}
	if c != cc.Case {
		cmd.Note = renumberedNote
	}
	if src == caseFileHolder {
		cmd.Note = notWritten(cmd.Note, caseFileHolder, len(c.Body), r.SaveCommand, cc.Case.Check)
	}
	b.WriteString(cmd.String())
	return termsafe.Lines(b.String())
}

// bodyFile and caseFileHolder stand in a reproduction for the body, and
// the case's records, of a call too large to print inline when no
// --save-cases file holds them: a name no file of the run has, said so.
const (
	bodyFile       = "BODY_FILE"
	caseFileHolder = "CASE_FILE"
)

// notWritten is the comment on a reproduction naming holder: what it
// stands for and how to get it (saveHint), after note (the comment so
// far, if any).
func notWritten(note, holder string, n int, save, check string) string {
	if note != "" {
		note += "; "
	}
	return note + bodyNotWritten(holder, n) + saveHint(save, check)
}

// bodyNotWritten says what holder stands for: a body this run wrote
// nowhere.
func bodyNotWritten(holder string, n int) string {
	return fmt.Sprintf("%s: the %d-byte body, not written by this run", holder, n)
}

// saveHint says how to get a body the run wrote nowhere. Without save,
// the reader ran whsim check, whose --save-cases writes it. A caller with
// no such option (whsimtest) gives save, the whsim check command that
// saves the cases, ending in "--checks ": the hint ends with it and
// check, so that it runs as printed.
func saveHint(save, check string) string {
	if save == "" {
		return ": rerun with --save-cases DIR for a command that sends it"
	}
	return ": whsim check writes it, and a command that sends it, with --save-cases: " + save + check
}

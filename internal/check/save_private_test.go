package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
)

// saveOne saves one failing case under dir and returns the reporter's
// error.
func saveOne(t *testing.T, dir string, c *Case) error {
	t.Helper()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Out: &sink{}, Target: target, SaveDir: dir, Header: http.Header{"Authorization": {"Bearer s3cret"}},
		Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
	rep.Result(Result{Case: c, Verdict: Fail, Status: 200})
	return rep.Finish(&Summary{Checks: map[string]*Tally{}})
}

// --save-cases keeps credentials: a file there already, readable by others,
// is replaced by a private one, never written into; a symlink planted
// where a case goes is replaced, its target untouched; a check directory
// that is a symlink is refused.
func TestSaveCasesPrivate(t *testing.T) {
	t.Parallel()
	c := &Case{Check: rejectsMalformed, Name: "not-json", Query: "businessType=E", Body: []byte("x")}
	t.Run("existing 0644 file", func(t *testing.T) {
		dir := t.TempDir()
		name := filepath.Join(dir, rejectsMalformed, "not-json.ndjson")
		os.MkdirAll(filepath.Dir(name), 0o755)
		os.WriteFile(name, []byte("old\n"), 0o644)
		results := filepath.Join(dir, ResultsFile)
		os.WriteFile(results, []byte("old\n"), 0o644)
		old, _ := os.Stat(name)
		if err := saveOne(t, dir, c); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{name, results} {
			fi, err := os.Stat(f)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, mode %v, want 0600", f, err, fi.Mode().Perm())
			}
			if b, _ := os.ReadFile(f); bytes.HasPrefix(b, []byte("old")) {
				t.Errorf("%s was written into, not replaced", f)
			}
		}
		if now, _ := os.Stat(name); os.SameFile(old, now) {
			t.Errorf("the 0644 file was kept and written through")
		}
	})
	t.Run("planted symlink", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), filepath.Join(t.TempDir(), "loot")
		os.WriteFile(elsewhere, nil, 0o644)
		os.MkdirAll(filepath.Join(dir, rejectsMalformed), 0o755)
		os.Symlink(elsewhere, filepath.Join(dir, rejectsMalformed, "not-json.ndjson"))
		os.Symlink(elsewhere, filepath.Join(dir, ResultsFile))
		if err := saveOne(t, dir, c); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(elsewhere); len(b) != 0 {
			t.Errorf("the symlink's target got %q", b)
		}
		for _, f := range []string{filepath.Join(dir, rejectsMalformed, "not-json.ndjson"), filepath.Join(dir, ResultsFile)} {
			if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v %v, want a regular 0600 file", f, err, fi.Mode())
			}
		}
	})
	t.Run("symlinked check directory", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		os.Symlink(elsewhere, filepath.Join(dir, rejectsMalformed))
		err := saveOne(t, dir, c)
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Errorf("err %v, want the symlink refused", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Errorf("%d files written through the symlink", len(ents))
		}
	})
}

// The load case's file holds every call of the load check, not the first.
func TestSaveLoadAllCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Out: &sink{}, Target: target, SaveDir: dir}
	var calls []*Case
	for i := range 300 {
		calls = append(calls, &Case{Check: Load, Name: "load", Query: "businessType=E", Body: []byte(`{"n":` + string(rune('0'+i%10)) + `}`)})
	}
	res := Result{Case: &Case{Check: Load, Name: "300-calls-at-16", Query: "businessType=E", Body: calls[0].Body}, Verdict: Fail, calls: calls}
	rep.Result(res)
	if err := rep.Finish(&Summary{Checks: map[string]*Tally{}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, Load, "300-calls-at-16.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, n := capture.NewReader(f), 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 300 {
		t.Errorf("%d records, want the 300 calls of the load check", n)
	}
}

// A report past the bound is refused, not read without end.
func TestReadFailedBounded(t *testing.T) {
	t.Parallel()
	// Lines of one length, each a case of its own (a run reports each once).
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"check":"rejects-malformed","case":"x%02d","verdict":"pass","status":400}`+"\n", i)
		}
		return b.String()
	}
	size := int64(len(lines(1)) * 10)
	_, _, err := readFailed(strings.NewReader(lines(100)), size)
	if !errors.Is(err, errReportSize) {
		t.Errorf("err %v, want the size refused", err)
	}
	if _, _, err := readFailed(strings.NewReader(lines(10)), size); err != nil {
		t.Errorf("a report within the bound: %v", err)
	}
}

// A line past the bound (a report of /dev/zero on stdin) is refused with
// its line and the bound, as a report's other faults are, not in bufio's
// words ("bufio.Scanner: token too long").
func TestReadFailedLongLine(t *testing.T) {
	t.Parallel()
	for line, in := range []io.Reader{
		io.LimitReader(zeros{}, maxReportLine+1),
		io.MultiReader(strings.NewReader(`{"check":"rejects-malformed","case":"x","verdict":"pass","status":400}`+"\n"), io.LimitReader(zeros{}, maxReportLine+1)),
	} {
		_, err := ReadFailed(in)
		want := fmt.Sprintf("line %d: longer than 64 MiB without a line break, more than any line check writes", line+1)
		if le := (*ReportLineError)(nil); !errors.As(err, &le) || err.Error() != want {
			t.Errorf("err %v, want %q", err, want)
		}
	}
}

// zeros reads as /dev/zero does.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// retag gives a document a number of its own shape, never the run's.
func TestRetag(t *testing.T) {
	t.Parallel()
	rnd := []byte("0123456789abcdef")
	for _, s := range []string{"CGFP-8261FQ-0463", "SKD-AAAAAA-0001", "12345678", "INV-2026-0001"} {
		got := retag(s, rnd)
		if got == s || len(got) < len(s) {
			t.Errorf("retag(%q) = %q", s, got)
		}
		if strings.Count(got, "-") < strings.Count(s, "-") {
			t.Errorf("retag(%q) = %q lost its shape", s, got)
		}
	}
	if got := retag("CGFP-8261FQ-0463", rnd); !strings.HasPrefix(got, "CGFP-") || !strings.HasSuffix(got, "-0463") {
		t.Errorf("a whsim number keeps its prefix and sequence: %q", got)
	}
}

// No case a run builds delivers a call more often than a rerun accepts.
func TestCopiesWithinRerunBound(t *testing.T) {
	t.Parallel()
	if serialCopies > MaxCopies || DefaultConcurrent > MaxCopies {
		t.Errorf("a run delivers %d in turn and %d at once; a rerun accepts %d", serialCopies, DefaultConcurrent, MaxCopies)
	}
}

// An effects failure keeps its whole sequence: each call with an answer per
// delivery and a command of its own, whose body --save-cases writes beside
// the case (0600) and curl reads with @file instead of carrying it inline.
func TestEffectsRecordAndBodyFiles(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newStore(t, storeDefects{storesAgain: true, unsigned: true}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Signer = nil
	cfg.Checks, cfg.Settle = []string{Effects}, 0
	cfg.SaveDir = t.TempDir()
	rep := &Reporter{Out: &sink{}, Target: cfg.Target, SaveDir: cfg.SaveDir}
	var serial *Result
	if _, err := Run(context.Background(), cfg, func(r Result) {
		rep.Result(r)
		if r.Verdict == Fail && strings.HasSuffix(r.Case.Name, "CREATE_RECEIVABLE_DOC/serial-x4") {
			serial = &r
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := rep.Finish(&Summary{Checks: map[string]*Tally{}}); err != nil {
		t.Fatal(err)
	}
	if serial == nil || serial.Effects == nil {
		t.Fatalf("the re-delivery stored again did not fail with its record: %+v", serial)
	}
	e := serial.Effects
	if len(e.Calls) != 1 || e.Calls[0].Copies != 4 || len(e.Calls[0].Answers) != 4 || e.Probe.Answered == "" || !strings.Contains(e.Probe.Command, e.Code) {
		t.Fatalf("record %+v", e)
	}
	for _, a := range e.Calls[0].Answers {
		if a.Status != 200 {
			t.Errorf("answer %+v, want 200 with its latency", a)
		}
	}
	m := regexp.MustCompile(`--data-binary @- <([^;\s]+)`).FindStringSubmatch(e.Calls[0].Reproduce)
	if m == nil {
		t.Fatalf("command %s reads no body file", e.Calls[0].Reproduce)
	}
	fi, err := os.Stat(m[1])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v (want a 0600 file)", m[1], err)
	}
	body, _ := os.ReadFile(m[1])
	want, _ := capture.DecodeBody(e.Calls[0].Body, e.Calls[0].BodyEncoding)
	if !bytes.Equal(body, want) {
		t.Errorf("%s holds %d bytes, not the call's body", m[1], len(body))
	}
	for _, line := range strings.Split(serial.Repro, "\n") {
		if len(line) > 600 {
			t.Errorf("a reproduction line of %d characters: %.100s…", len(line), line)
		}
	}
}

// RunURL is the report's one URL; cases for another are refused.
func TestRunURL(t *testing.T) {
	t.Parallel()
	q := "businessType=E"
	for _, tc := range []struct {
		name  string
		cases []Failed
		want  string
		err   string
	}{
		{"one", []Failed{{URL: "http://h:1/hook?" + q, Query: q}, {Check: Latency}, {URL: "http://h:1/hook", Query: ""}}, "http://h:1/hook", ""},
		{"own query kept", []Failed{{URL: "http://h:1/hook?k=v&" + q, Query: q}}, "http://h:1/hook?k=v", ""},
		{"another host", []Failed{{Check: "a", Name: "1", URL: "http://h:1/hook?" + q, Query: q}, {Check: "a", Name: "2", URL: "http://evil:1/hook?" + q, Query: q}},
			"", "a 2 is for http://evil:1/hook, but a 1 is for http://h:1/hook"},
		{"another path", []Failed{{URL: "http://h:1/hook", Query: ""}, {URL: "http://h:1/other"}}, "", "a run has one URL"},
		{"query not its own", []Failed{{URL: "http://evil:1/x?a=b", Query: q}}, "", "does not end in its query"},
		{"none", []Failed{{Check: Latency}}, "", "give --url"},
	} {
		got, err := RunURL(tc.cases)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// A signed effects failure, read back from its report, is sent again for a
// fresh document, signed afresh (the store verifies), and judged by the
// probe: still failing against the receiver that stores re-deliveries
// again, fixed against a careful one.
func TestRerunEffectsSigned(t *testing.T) {
	t.Parallel()
	broken := httptest.NewServer(newStore(t, storeDefects{storesAgain: true}))
	defer broken.Close()
	cfg := probeConfig(t, broken.URL)
	cfg.Checks, cfg.Settle = []string{Effects}, 0
	rep := &Reporter{Target: cfg.Target, Signer: cfg.Signer, Now: time.Now}
	var in bytes.Buffer
	if _, err := Run(context.Background(), cfg, func(r Result) {
		if r.Verdict == Fail {
			in.Write(reported(t, rep, r))
		}
	}); err != nil {
		t.Fatal(err)
	}
	cases, err := ReadFailed(&in)
	if err != nil || len(cases) == 0 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
	for _, c := range cases {
		if c.Effects == nil || len(c.Effects.Calls) == 0 || !c.Effects.Calls[0].Resign {
			t.Fatalf("%s read back without its signed calls: %+v", c.Name, c.Effects)
		}
	}
	rerun := func(srvURL string) map[string]RerunResult {
		p, err := probe.ParseURL(srvURL+"/probe/{kind}/{code}", cfg.Client, nil)
		if err != nil {
			t.Fatal(err)
		}
		target, _ := url.Parse(srvURL)
		out := map[string]RerunResult{}
		rc := RerunConfig{Client: cfg.Client, Target: target, Signer: cfg.Signer, Now: time.Now, IDs: reqid.NewIDs(7), Probe: p}
		if err := Rerun(context.Background(), rc, cases, func(r RerunResult) { out[r.Case.Name] = r }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	const serial = "re-delivered/CREATE_RECEIVABLE_DOC/serial-x4"
	if r := rerun(broken.URL)[serial]; r.Outcome != StillFailing || !strings.Contains(r.Reason, `the probe answered {"count":4`) {
		t.Errorf("broken: %s %s", r.Outcome, r.Reason)
	}
	careful := httptest.NewServer(newStore(t, storeDefects{}))
	defer careful.Close()
	for name, r := range rerun(careful.URL) {
		if r.Outcome != Fixed {
			t.Errorf("careful: %s %s: %s", name, r.Outcome, r.Reason)
		}
	}
	if _, ok := rerun(careful.URL)[serial]; !ok {
		t.Errorf("no rerun of %s", serial)
	}
}

// A rerun asks its probe about a document never sent before it sends
// anything, as a run does: a probe that answers count 1, voided whatever
// it is asked made every effects case of a rerun read FIXED against a
// receiver still broken.
func TestRerunProbeSanity(t *testing.T) {
	t.Parallel()
	broken := httptest.NewServer(newStore(t, storeDefects{neverVoids: true}))
	defer broken.Close()
	cfg := probeConfig(t, broken.URL)
	cfg.Checks, cfg.Settle = []string{Effects}, 0
	rep := &Reporter{Target: cfg.Target, Signer: cfg.Signer, Now: time.Now}
	var in bytes.Buffer
	if _, err := Run(context.Background(), cfg, func(r Result) {
		if r.Verdict == Fail {
			in.Write(reported(t, rep, r))
		}
	}); err != nil {
		t.Fatal(err)
	}
	cases, err := ReadFailed(&in)
	if err != nil || len(cases) == 0 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `{"count":1,"state":"voided"}`)
			return
		}
		posts.Add(1)
	}))
	defer srv.Close()
	p, err := probe.ParseURL(srv.URL+"/probe/{kind}/{code}", cfg.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(srv.URL)
	rc := RerunConfig{Client: cfg.Client, Target: target, Signer: cfg.Signer, Now: time.Now, IDs: reqid.NewIDs(7), Probe: p}
	var got []string
	err = Rerun(context.Background(), rc, cases, func(r RerunResult) { got = append(got, r.Outcome+" "+r.Case.Name) })
	var pe *probe.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "a document never sent") {
		t.Errorf("err = %v, want a probe.Error about a document never sent; outcomes %v", err, got)
	}
	if n := posts.Load(); n != 0 || len(got) != 0 {
		t.Errorf("%d calls sent and outcomes %v before the probe was found wrong, want none", n, got)
	}
}

// A saved case records the path check sent as listen records a call's:
// decoded in "path", the escapes the URL had in "rawPath". It wrote the
// escaped path where the decoded one belongs: a --url ending /hook%20x was
// saved as the path "/hook%20x", which every reader took for a path with a
// '%' in it (the inspector's curl asked for /hook%2520x).
func TestSavedCaseRecordsThePathAsListenDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, path, raw, target string }{
		{"http://127.0.0.1:9/hook%20x", "/hook x", "", "/hook%20x"},
		{"http://127.0.0.1:9/a%2Fb", "/a/b", "/a%2Fb", "/a%2Fb"},
		{"http://127.0.0.1:9", "/", "", "/"},
	} {
		dir := t.TempDir()
		target, _ := url.Parse(tc.url)
		rep := &Reporter{Out: &sink{}, Target: target, SaveDir: dir}
		rep.Result(Result{Case: &Case{Check: rejectsMalformed, Name: "not-json", Query: "businessType=E", Body: []byte("x")}, Verdict: Fail, Status: 200})
		if err := rep.Finish(&Summary{Checks: map[string]*Tally{}}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, rejectsMalformed, "not-json.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.Decode(bytes.TrimSpace(b))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Path != tc.path || rec.RawPath != tc.raw || rec.TargetPath() != tc.target {
			t.Errorf("%s: saved path %q rawPath %q (sent as %q), want %q %q (%q)", tc.url, rec.Path, rec.RawPath, rec.TargetPath(), tc.path, tc.raw, tc.target)
		}
	}
}

// A run and a rerun judge a document of more than one call on an answer
// given once the receiver has stored every call it stores late: a copy may
// land after the first match. A receiver that still stored every copy,
// each late, read FIXED: the first copy was held once when the rerun first
// found it, and the rerun asked no more; one that held the first copy
// when first asked, the others a moment later, passed the run.
func TestRerunEffectsLateCopiesStillFail(t *testing.T) {
	t.Parallel()
	// Each copy stored again once the probe has asked about it: held
	// once when first asked, as every document of the run is, and four
	// times a moment later.
	broken := httptest.NewServer(newStore(t, storeDefects{storesAgain: true, unsigned: true, copiesOnAsk: true}))
	defer broken.Close()
	cfg := probeConfig(t, broken.URL)
	cfg.Signer = nil
	cfg.Checks, cfg.Settle = []string{Effects}, DefaultSettle
	cfg.ExcludeCases = []string{"created/*/*", "lifecycle/*/*", "out-of-order/*/*", "re-delivered/*/concurrent-x8", "re-delivered/*/sender-retry", "re-delivered/*/new-request-id-*"}
	rep := &Reporter{Target: cfg.Target, Now: time.Now}
	var in bytes.Buffer
	if _, err := Run(context.Background(), cfg, func(r Result) {
		if r.Verdict == Fail {
			in.Write(reported(t, rep, r))
		}
	}); err != nil {
		t.Fatal(err)
	}
	cases, err := ReadFailed(&in)
	if err != nil || len(cases) != 2 {
		t.Fatalf("%d cases, %v; want the two serial-x4 documents", len(cases), err)
	}
	// The same defect, stored from a queue: the first copy once the
	// document was asked about, the others once asked again; or the first
	// at once and the others once asked, held once when first asked.
	for _, d := range []storeDefects{
		{storesAgain: true, unsigned: true, storeOnAsk: true},
		{storesAgain: true, unsigned: true, copiesOnAsk: true},
	} {
		late := httptest.NewServer(newStore(t, d))
		defer late.Close()
		p, err := probe.ParseURL(late.URL+"/probe/{kind}/{code}", cfg.Client, nil)
		if err != nil {
			t.Fatal(err)
		}
		target, _ := url.Parse(late.URL)
		rc := RerunConfig{Client: cfg.Client, Target: target, Now: time.Now, IDs: reqid.NewIDs(7), Probe: p, Settle: DefaultSettle}
		n := 0
		if err := Rerun(context.Background(), rc, cases, func(r RerunResult) {
			n++
			if r.Outcome != StillFailing || !strings.Contains(r.Reason, `the probe answered {"count":4`) {
				t.Errorf("%+v: %s: %s %s, want still failing, the 4 copies held", d, r.Case.Name, r.Outcome, r.Reason)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("%+v: %d cases rerun, want 2", d, n)
		}
	}
}

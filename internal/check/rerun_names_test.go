package check

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// A report is input: a failed case that names a check this whsim does not
// have, or a case no run of its check reports, was not written by a run
// (edited, or of another version), and a rerun would send it and judge it
// by the rules of a check it is no case of. Refused, naming each such case
// terminal-safe and cut short, and saying where a run's names are seen.
func TestReadFailedRefusesCasesNoCheckHas(t *testing.T) {
	t.Parallel()
	// A duplicates case is a valid call under its event, as a run sends
	// it (a report read back refuses one that is not).
	valid := strconv.Quote(string(receiptCall(t, "33333333-3333-4333-8333-333333333333")))
	line := func(check, name string) string {
		if check == duplicates {
			return `{"check":` + quote(check) + `,"case":` + quote(name) + `,"verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/?businessType=CREATE_RECEIVABLE_DOC","query":"businessType=CREATE_RECEIVABLE_DOC","body":` + valid + `}}` + "\n"
		}
		return `{"check":` + quote(check) + `,"case":` + quote(name) + `,"verdict":"fail","want":"4xx","request":{"url":"http://127.0.0.1:1/","body":""}}` + "\n"
	}
	noCall := func(check, name string) string {
		return `{"check":` + quote(check) + `,"case":` + quote(name) + `,"verdict":"fail"}` + "\n"
	}
	long := strings.Repeat("x", 5000)
	for _, tt := range []struct {
		name, report string
		// says is in the error, "" for a report read whole.
		says []string
	}{
		{"a case of its check", line(rejectsMalformed, "not-json") + line(rejectsMalformed, "type/data.code/number-for-string"), nil},
		{"copies at once as another run sent them", line(duplicates, "CREATE_RECEIVABLE_DOC/concurrent-x4") + noCall(Load, "7-calls-at-3") +
			noCall(Effects, "under-load/3-of-5-documents"), nil},
		{"a name no case has", line(rejectsMalformed, "not-json") + line(rejectsMalformed, "no-such-case"),
			[]string{"a failed case no check has: rejects-malformed no-such-case (a report edited, or of another whsim version)", "whsim check --output json lists"}},
		{"a check this whsim has not", noCall("no-such-check", "p99"), []string{"a failed case no check has: no-such-check p99"}},
		{"a case of another check", line(rejectsMalformed, "CREATE_RECEIVABLE_DOC/sample"), []string{"rejects-malformed CREATE_RECEIVABLE_DOC/sample"}},
		{"more copies at once than a run sends", line(duplicates, "CREATE_RECEIVABLE_DOC/concurrent-x9"), []string{"duplicates CREATE_RECEIVABLE_DOC/concurrent-x9"}},
		{"a load named by no run", noCall(Load, "0-calls-at-16"), []string{"load 0-calls-at-16"}},
		{"terminal escapes, said escaped", line(rejectsMalformed, "not-json\x1b[2J\u202e"), []string{`rejects-malformed not-json\x1b[2J\u202e`}},
		{"a huge name, cut short", line(rejectsMalformed, long), []string{"rejects-malformed " + long[:80] + "… (5000 bytes)"}},
		{"many, each named up to five", line(rejectsMalformed, "a") + line(rejectsMalformed, "b") + line(rejectsMalformed, "c") + line(rejectsMalformed, "d") +
			line(rejectsMalformed, "e") + line(rejectsMalformed, "f") + line(rejectsMalformed, "g"),
			[]string{"7 failed cases no check has: rejects-malformed a, rejects-malformed b, rejects-malformed c, rejects-malformed d, rejects-malformed e, and 2 more ("}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFailed(strings.NewReader(tt.report))
			if tt.says == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read, want it refused saying %q", tt.says)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v\nsays no %q", err, s)
				}
			}
			if strings.ContainsAny(err.Error(), "\x1b\u202e") || len(err.Error()) > 1000 {
				t.Errorf("error not terminal-safe, or not short: %q", err)
			}
		})
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			b.WriteString(`\u00` + string("0123456789abcdef"[r>>4]) + string("0123456789abcdef"[r&15]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Every case a run reports is one a rerun takes: the names known to it are
// those of a real run's results, with another seed and other copies at
// once, load calls and concurrency than the defaults its names are built
// with, effects included.
func TestRerunKnowsEveryCaseARunReports(t *testing.T) {
	t.Parallel()
	st := newStore(t, storeDefects{})
	srv := httptest.NewServer(st)
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Seed, cfg.Concurrent, cfg.LoadCount, cfg.LoadConcurrency = 7, 4, 10, 3
	_, results := runAll(t, cfg)
	known, err := caseNames()
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]bool{}
	for _, r := range results {
		checks[r.Case.Check] = true
		if r.Verdict != Skip && !known.has(r.Case.Check, r.Case.Name) {
			t.Errorf("%s %s: reported by a run, unknown to a rerun", r.Case.Check, r.Case.Name)
		}
	}
	for _, id := range IDs() {
		if !checks[id] {
			t.Errorf("no result of %s: the run did not try its names", id)
		}
	}
}

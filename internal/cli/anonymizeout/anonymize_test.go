package anonymizeout

import (
	"bytes"
	"errors"
	"testing"

	"github.com/whsim/whsim/internal/anonymize"
	"github.com/whsim/whsim/internal/capture"
)

// Counts over several inputs add up, and the report says them in words,
// with the --resign hint only when the calls were not signed again.
func TestStatsReport(t *testing.T) {
	t.Parallel()
	total := &anonymize.Stats{Replaced: anonymize.Report{}, Dropped: map[string]int{}}
	total.Add(&anonymize.Stats{Records: 1, Replaced: anonymize.Report{anonymize.TaxID: 1, anonymize.Echo: 2}, Dropped: map[string]int{"Webhook-Signature": 1}})
	total.Add(&anonymize.Stats{Records: 2, Replaced: anonymize.Report{anonymize.TaxID: 2}, Dropped: map[string]int{"Webhook-Signature": 2}, Leaks: []anonymize.Leak{{Line: 3}}})
	if total.Records != 3 || total.Replaced[anonymize.TaxID] != 3 || total.Dropped["Webhook-Signature"] != 3 || len(total.Leaks) != 1 {
		t.Fatalf("total %+v", total)
	}
	for _, tt := range []struct {
		resigned bool
		want     string
	}{
		{false, "anonymized 3 capture records: replaced 3 " + string(anonymize.TaxID) + "s, 2 echoes\n" +
			"dropped Webhook-Signature from 3 records (it signed the old body; --resign whsec_... signs the calls again)\n"},
		{true, "anonymized 3 capture records: replaced 3 " + string(anonymize.TaxID) + "s, 2 echoes\ndropped Webhook-Signature from 3 records\n"},
	} {
		var b bytes.Buffer
		WriteAnonymizeReport(&b, total, tt.resigned)
		if b.String() != tt.want {
			t.Errorf("resigned %v:\n%s\nwant\n%s", tt.resigned, b.String(), tt.want)
		}
	}
	// --resign of payload files alone signs nothing, and says so.
	var payloads bytes.Buffer
	WriteAnonymizeReport(&payloads, &anonymize.Stats{Payloads: 2, Replaced: anonymize.Report{}}, true)
	if want := "anonymized 2 payloads: replaced nothing\nsigned nothing: --resign signs capture records (whsim listen --capture), and the input held none; a payload carries no signature\n"; payloads.String() != want {
		t.Errorf("--resign of payloads:\n%s\nwant\n%s", payloads.String(), want)
	}
	// Payload files and capture files in one run: both are counted.
	total.Add(&anonymize.Stats{Payloads: 1, Replaced: anonymize.Report{}})
	var b bytes.Buffer
	WriteAnonymizeReport(&b, total, true)
	if want := "anonymized 1 payload and 3 capture records: "; !bytes.HasPrefix(b.Bytes(), []byte(want)) {
		t.Errorf("payloads and records:\n%s\nwant it to start %q", b.String(), want)
	}
}

// An interrupted run says where it stopped, what it did not write, what
// it did not read and what it wrote.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		it   Interrupted
		want string
	}{
		{Interrupted{In: "<stdin>"}, "interrupted (Ctrl-C or SIGTERM) in <stdin>: stdout holds its output cut short"},
		{Interrupted{In: "a.ndjson", Out: "clean.ndjson"}, "interrupted (Ctrl-C or SIGTERM) in a.ndjson: clean.ndjson not written"},
		{Interrupted{In: "b.ndjson", Out: "out/b.ndjson", Written: []string{"out/a.ndjson"}, Left: 2},
			"interrupted (Ctrl-C or SIGTERM) in b.ndjson: out/b.ndjson not written, 2 more inputs not read; wrote out/a.ndjson"},
		{Interrupted{In: "a\x1b[2J.ndjson", Left: 1}, "interrupted (Ctrl-C or SIGTERM) in a\\x1b[2J.ndjson: stdout holds its output cut short, 1 more input not read"},
		// Stopped in the first reading of several inputs: nothing written.
		{Interrupted{In: "b.ndjson", Reading: true}, "interrupted (Ctrl-C or SIGTERM) while reading b.ndjson, before anything was written"},
	} {
		if got := tt.it.String(); got != tt.want {
			t.Errorf("%+v:\n%s\nwant\n%s", tt.it, got, tt.want)
		}
	}
}

// A torn record is said at file:line, as anonymize's errors and leaks and
// validate's findings place theirs: found by an44, it said
// "calls.ndjson: line 3: …", and stdin as <stdin> there but "-" in errors.
func TestTornRecordIsSaidAtFileAndLine(t *testing.T) {
	t.Parallel()
	torn := &capture.TornError{Line: 3, Err: errors.New("unexpected end of JSON input")}
	for _, tt := range []struct{ name, want string }{
		{"calls.ndjson", "calls.ndjson:3: the last line is a capture record cut short, as a crash or a full disk while listen wrote it leaves it (unexpected end of JSON input); skipped"},
		{"-", "<stdin>:3: the last line is a capture record cut short, as a crash or a full disk while listen wrote it leaves it (unexpected end of JSON input); skipped"},
	} {
		if got := Torn(tt.name, torn); got != tt.want {
			t.Errorf("Torn(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

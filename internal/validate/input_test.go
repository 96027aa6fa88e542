package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/whsim/whsim/internal/capture/capturetest"
	"github.com/whsim/whsim/internal/input"
)

// results reads an input and describes each result as
// "<line>/<element>:<rules>[ skipped]" in order.
func results(t *testing.T, v *Validator, in source, input string) ([]string, Summary, error) {
	t.Helper()
	var out []string
	var sum Summary
	_, err := v.checkInput(context.Background(), strings.NewReader(input), in, func(r *result) error {
		sum.add(r)
		d := fmt.Sprintf("%d/%d:%s", r.Line, r.Element, strings.Join(ruleSet(r.Findings), ","))
		if r.skipped {
			d += " skipped"
		}
		if r.Failed != v.Failed(r.Findings) && !r.skipped {
			t.Errorf("%s: Failed %v disagrees with the findings", d, r.Failed)
		}
		out = append(out, d)
		return nil
	})
	return out, sum, err
}

func compact(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCheckInput(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	rec := load(t, "receipt.json")
	one := compact(t, rec)
	bad := strings.Replace(one, `"requestId":"`, `"requestId":"x`, 1)
	capture := func(body string) string {
		b, _ := json.Marshal(body)
		return `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","body":` + string(b) + `,"bodyEncoding":"utf8"}`
	}
	pretty := func(docs ...string) string { // as generate --output json prints them
		var parts []string
		for _, d := range docs {
			var b bytes.Buffer
			if err := json.Indent(&b, []byte(d), "", "  "); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, b.String())
		}
		return "[\n" + strings.Join(parts, ",\n") + "\n]\n"
	}
	tests := []struct {
		name, file, input string
		max               int
		want              []string
		wantErr           string
	}{
		{name: "document", file: "r.json", input: rec, want: []string{"0/-1:"}},
		{name: "empty document: nothing to check", file: "r.json", input: " \n"},
		{name: "one torn capture record", file: "c.log", input: capture(one)[:40],
			want: []string{"1/-1:torn-line skipped"}},
		{name: "empty ndjson", file: "r.ndjson", input: "\n\n"},
		{name: "ndjson", file: "-", input: one + "\n\n" + bad + "\n", want: []string{"1/-1:", "3/-1:envelope-request-id"}},
		{name: "ndjson crlf", file: "-", input: one + "\r\n" + one + "\r\n", want: []string{"1/-1:", "2/-1:"}},
		{name: "bad first line streams", file: "-", input: one[:len(one)-1] + ",}\n" + one + "\n",
			want: []string{"1/-1:json-syntax", "2/-1:"}},
		{name: "pretty document", file: "-", input: rec, want: []string{"0/-1:"}},
		{name: "truncated first line streams", file: "-", input: one[:300] + "\n" + one + "\n" + bad + "\n",
			want: []string{"1/-1:json-syntax", "2/-1:", "3/-1:envelope-request-id"}},
		{name: "broken pretty document", file: "-", input: "{\n  \"a\": 1,\n}\n", want: []string{"0/-1:json-syntax"}},
		{name: "one open line", file: "-", input: "{\"a\": 1", want: []string{"0/-1:json-syntax"}},
		{name: "array", file: "out.json", input: pretty(one, bad, one),
			want: []string{"0/0:", "0/1:envelope-request-id", "0/2:"}},
		{name: "one-line array", file: "-", input: "[" + one + "," + bad + "]", want: []string{"0/0:", "0/1:envelope-request-id"}},
		{name: "empty array", file: "-", input: " [ ] \n"},
		{name: "array with a broken element", file: "-", input: "[" + one + ",{\"a\":,}," + one + "]",
			want: []string{"0/0:", "0/1:json-syntax", "0/2:"}},
		{name: "array trailing comma", file: "-", input: "[" + one + ",]", want: []string{"0/0:", "0/1:json-syntax"}},
		{name: "array not closed", file: "-", input: "[" + one, want: []string{"0/0:", "0/-1:json-syntax"}},
		{name: "array then data", file: "-", input: "[" + one + "] x", want: []string{"0/0:", "0/-1:json-syntax"}},
		{name: "array in ndjson file", file: "out.ndjson", input: pretty(one), wantErr: "jq -c '.[]'"},
		{name: "pretty json in ndjson file", file: "x.NDJSON", input: rec, wantErr: "pretty-printed JSON"},
		{name: "capture naming the event twice", file: "c.ndjson",
			input: strings.Replace(capture(one), `"query":"businessType=CREATE_RECEIVABLE_DOC"`, `"query":"businessType=CREATE_RECEIVABLE_DOC&businessType=ABANDON_RECEIVABLE_DOC"`, 1) + "\n",
			want:  []string{"1/-1:query-event"}},
		{name: "captures", file: "c.ndjson", input: capture(one) + "\n" + capture(bad) + "\n",
			want: []string{"1/-1:", "2/-1:envelope-request-id"}},
		{name: "torn last capture line", file: "c.ndjson", input: capture(one) + "\n" + capture(one)[:40],
			want: []string{"1/-1:", "2/-1:torn-line skipped"}},
		{name: "complete last line without newline", file: "c.ndjson", input: capture(one) + "\n" + capture(one),
			want: []string{"1/-1:", "2/-1:"}},
		{name: "huge line", file: "-", max: 1024, input: "{\"a\":1,}\n" + strings.Repeat("x", 5000) + "\n{}\n",
			want: []string{"1/-1:json-syntax", "2/-1:payload-size", "3/-1:envelope-business-type,envelope-data,envelope-request-id"}},
		{name: "huge first line", file: "-", max: 1024, input: strings.Repeat("x", 5000) + "\n{}",
			want: []string{"1/-1:payload-size", "2/-1:envelope-business-type,envelope-data,envelope-request-id"}},
		{name: "huge document", file: "r.json", max: 1024, input: rec + strings.Repeat(" ", 2000), want: []string{"0/-1:payload-size"}},
		{name: "huge element", file: "-", max: 1024, input: "[{}, \"" + strings.Repeat("x", 3000) + "\", {}]",
			want: []string{"0/0:envelope-business-type,envelope-data,envelope-request-id", "0/1:payload-size", "0/2:envelope-business-type,envelope-data,envelope-request-id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := results(t, v, source{name: tt.file, maxPayload: tt.max}, tt.input)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// An array element's findings carry their line and column in the whole
// input, not in the element.
func TestCheckInputArrayPositions(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	input := "[\n  {\"a\": 1},\n  {\"b\": tru}\n]\n"
	var fs []Finding
	_, err := v.checkInput(context.Background(), strings.NewReader(input), source{name: "-"}, func(r *result) error {
		if r.Element == 1 {
			fs = r.Findings
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Line != 3 || fs[0].Column != 12 || !strings.HasPrefix(fs[0].Message, "line 3, column 12: ") {
		t.Fatalf("findings %+v, want one at line 3, column 12 (the byte after tru)", fs)
	}
}

// A capture record is checked as the event its query names; the summary
// counts those whose query names another than the run's --event, for the
// note validate prints.
func TestSummaryCapturedOtherEvent(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Ignore: []string{"missing-field"}})
	rec := compact(t, load(t, "receipt.json"))
	b, _ := json.Marshal(rec)
	line := func(event string) string {
		return `{"capture":1,"query":"businessType=` + event + `","body":` + string(b) + `}`
	}
	in := line("CREATE_RECEIVABLE_DOC") + "\n" + line("ABANDON_RECEIVABLE_DOC") + "\n" + string(rec) + "\n"
	for _, tt := range []struct {
		event           string
		captures, other int
	}{
		{"", 2, 0},
		{"CREATE_RECEIVABLE_DOC", 2, 1},
		{"ABANDON_RECEIVABLE_DOC", 2, 1},
		{"AUDIT_PURCHASE_ORDER_INVOICE", 2, 2},
	} {
		_, sum, err := results(t, v, source{name: "c.ndjson", event: tt.event}, in)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Captures != tt.captures || sum.OtherEvent != tt.other {
			t.Errorf("--event %q: %d captures, %d of another event; want %d, %d", tt.event, sum.Captures, sum.OtherEvent, tt.captures, tt.other)
		}
	}
}

func TestSummaryTornNeverFails(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	rec := compact(t, load(t, "receipt.json"))
	b, _ := json.Marshal(rec)
	line := `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","body":` + string(b) + `}`
	_, sum, err := results(t, v, source{name: "c.ndjson"}, line+"\n"+line[:50])
	if err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Payloads: 1, Warnings: 1, Captures: 1}) {
		t.Fatalf("summary %+v, want 1 payload, 0 failed, 1 warning", sum)
	}
}

// blockingReader never returns, as a terminal nobody types into.
type blockingReader struct{ ch chan struct{} }

func (b blockingReader) Read([]byte) (int, error) { <-b.ch; return 0, io.EOF }

func TestCheckInputCancel(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	block := blockingReader{make(chan struct{})}
	defer close(block.ch)
	go func() {
		_, err := v.checkInput(ctx, block, source{name: "-"}, func(*result) error { return nil })
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("checkInput did not return after cancellation")
	}
}

// FuzzCheckInput feeds arbitrary inputs, as a file and as NDJSON: reading
// must not panic or fail (the input is in memory), every result must be
// well formed, and the summary must count what was reported.
func FuzzCheckInput(f *testing.F) {
	one := compact(f, load(f, "receipt.json"))
	f.Add([]byte(one+"\n"+one[:100]+"\n"), 64, false)
	f.Add([]byte("[\n"+one+",\n"+one+"\n]\n"), 0, false)
	f.Add([]byte("[{}, [1,2], \"x\\\"]\", ]  x"), 0, false)
	f.Add([]byte("{\n  \"a\": 1\n}\n"), 0, true)
	f.Add([]byte(`{"capture":1,"body":"{}"}`+"\n"+`{"capture":1,"bo`), 16, true)
	f.Add([]byte(strings.Repeat(one+"\n{}\n\n", 5)+"x\n"), 1000, true)
	v, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	oneByOne := &batching{workers: 1}
	// Tiny batches and budget, many workers: every path of the pipeline.
	many := &batching{workers: 3, items: 2, bytes: 64, inFlight: 100}
	f.Fuzz(func(t *testing.T, in []byte, max int, ndjson bool) {
		name := "in.json"
		if ndjson {
			name = "in.ndjson"
		}
		src := source{name: name, maxPayload: max % 4096, batching: oneByOne}
		var want []string
		_, wantErr := v.checkInput(context.Background(), bytes.NewReader(in), src, func(r *result) error {
			want = append(want, fmt.Sprintf("%+v", *r))
			return nil
		})
		var sum, counted Summary
		var got []string
		src.batching = many
		_, err := v.checkInput(context.Background(), bytes.NewReader(in), src, func(r *result) error {
			got = append(got, fmt.Sprintf("%+v", *r))
			sum.add(r)
			if r.Line < 0 || r.Element < -1 || (r.Line > 0 && r.Element >= 0) {
				t.Fatalf("malformed result %+v", r)
			}
			switch {
			case r.skipped:
			case r.notChecked != "":
				counted.NotChecked++
			default:
				counted.Payloads++
			}
			for _, x := range r.Findings {
				if x.Rule == "" || x.Message == "" || x.Line < 0 || x.Column < 0 {
					t.Fatalf("malformed finding %+v", x)
				}
			}
			return nil
		})
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
			t.Fatalf("on many workers: %v\n%q\none by one: %v\n%q", err, got, wantErr, want)
		}
		// The only errors of an input in memory: it cannot be read as what
		// it says it is (pretty-printed JSON named .ndjson, a value that runs
		// on far past the limit).
		if _, format := errors.AsType[*input.FormatError](err); err != nil && !format {
			t.Fatalf("in-memory input: %v", err)
		}
		if sum.Payloads != counted.Payloads || sum.NotChecked != counted.NotChecked {
			t.Fatalf("summary %+v counts %d payloads checked and %d not, %d and %d reported", sum, sum.Payloads, sum.NotChecked, counted.Payloads, counted.NotChecked)
		}
	})
}

// The pipeline reports what the one-by-one loop reports, in its order:
// inputs of every kind, cut into batches of every size.
func TestCheckInputOnManyWorkers(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	one := compact(t, load(t, "receipt.json"))
	b, _ := json.Marshal(one)
	rec := `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","body":` + string(b) + `}`
	parts := []string{one, rec, rec[:80], "{}", "", "x", "[1,2]", one[:100], strings.Repeat("a", 300),
		strings.Replace(rec, `\"requestId\"`, `\"requestID\"`, 1)}
	r := rand.New(rand.NewPCG(35, 1))
	for i := range 300 {
		var sb strings.Builder
		sep := "\n"
		if i%3 == 0 {
			sb.WriteString("[")
			sep = ",\n"
		}
		for j := r.IntN(30); j > 0; j-- {
			sb.WriteString(parts[r.IntN(len(parts))])
			sb.WriteString(sep)
		}
		name := []string{"in.ndjson", "in.json"}[r.IntN(2)]
		max := []int{0, 50, 200, 2000}[r.IntN(4)]
		many := &batching{workers: 1 + r.IntN(4), items: 1 + r.IntN(5), bytes: r.IntN(3000), inFlight: int64(1 + r.IntN(5000))}
		describe := func(bt *batching) (string, error) {
			var out strings.Builder
			// Reads of every size: a chunk is cut wherever a read ends.
			var rd io.Reader = strings.NewReader(sb.String())
			switch i % 4 {
			case 1:
				rd = iotest.HalfReader(rd)
			case 2:
				rd = iotest.OneByteReader(rd)
			case 3:
				rd = iotest.DataErrReader(rd)
			}
			_, err := v.checkInput(context.Background(), rd, source{name: name, maxPayload: max, batching: bt},
				func(r *result) error {
					fmt.Fprintf(&out, "%+v\n", *r)
					return nil
				})
			return out.String(), err
		}
		want, wantErr := describe(&batching{workers: 1})
		got, err := describe(many)
		if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("input %d (%s, max %d) on %+v:\n%s%v\none by one:\n%s%v", i, name, max, *many, got, err, want, wantErr)
		}
	}
}

// With the default batching, a large input's batches are read into
// buffers cut from one block (bufferSlab), reused batch after batch: the
// pipeline still reports what the one-by-one loop reports. The records
// vary, failing ones among them, so that a buffer written over by its
// neighbour or read before it was filled would show.
func TestCheckInputOnDefaultBatching(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	lines := capturetest.FixtureLines(t)
	bad := strings.Replace(string(lines[0]), `\"requestId\"`, `\"requestID\"`, 1)
	var sb strings.Builder
	for i := 0; sb.Len() < 6<<20; i++ { // a dozen 512 KiB batches, more than a block holds
		if i%97 == 0 {
			sb.WriteString(bad)
		} else {
			sb.Write(lines[i%len(lines)])
		}
		sb.WriteByte('\n')
	}
	describe := func(bt *batching) string {
		var out strings.Builder
		_, err := v.checkInput(context.Background(), strings.NewReader(sb.String()), source{name: "captures.ndjson", batching: bt},
			func(r *result) error {
				fmt.Fprintf(&out, "%+v\n", *r)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := describe(&batching{workers: 1})
	bt := defaultBatching()
	bt.workers = 3 // what GOMAXPROCS may not give
	if got := describe(&bt); got != want {
		t.Fatalf("on every CPU, in the default batches:\n%.2000s\none by one:\n%.2000s", got, want)
	}
	if !strings.Contains(want, "Failed:true") {
		t.Fatal("no record failed: the input does not test what it should")
	}
}

// A reporter that fails stops the pipeline: nothing after it is reported.
func TestCheckInputOnManyWorkersStops(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	in := strings.Repeat("{}\n", 1000)
	stop := errors.New("stop")
	n := 0
	_, err := v.checkInput(context.Background(), strings.NewReader(in), source{name: "in.ndjson", batching: &batching{workers: 3, items: 7, bytes: 1 << 10, inFlight: 64}},
		func(r *result) error {
			n++
			if r.Line != n {
				t.Fatalf("result %d is line %d", n, r.Line)
			}
			if n == 100 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 100 {
		t.Fatalf("%d results, err %v; want 100, stop", n, err)
	}
}

// On many workers a payload piped in is reported as soon as it is read,
// before the next one is written: `listen | validate` followed live.
func TestCheckInputOnManyWorkersStreams(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	pr, pw := io.Pipe()
	reported := make(chan int)
	done := make(chan error, 1)
	go func() {
		_, err := v.checkInput(context.Background(), pr, source{name: "-", batching: &batching{workers: 2, items: 512, bytes: 1 << 20, inFlight: 8 << 20}},
			func(r *result) error {
				reported <- r.Line
				return nil
			})
		done <- err
	}()
	for line := 1; line <= 3; line++ {
		if _, err := io.WriteString(pw, "{}\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-reported:
			if got != line {
				t.Fatalf("reported line %d, want %d", got, line)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("line %d was not reported while the pipe stayed open", line)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The results handed to fn are reused once fn is done with them, on every
// CPU and one by one: a fresh result for each payload of a 32 MB capture
// cost some 280 page faults (docs/performance.md). The reports stay those
// of TestCheckInputOnDefaultBatching.
func TestCheckInputReusesResults(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	lines := capturetest.FixtureLines(t)
	var sb strings.Builder
	for i := 0; sb.Len() < 12<<20; i++ { // two dozen 512 KiB batches
		sb.Write(lines[i%len(lines)])
		sb.WriteByte('\n')
	}
	for _, tc := range []struct {
		name string
		bt   batching
		most func(n int) int // the distinct results allowed for n payloads
	}{
		{"one-by-one", batching{workers: 1}, func(int) int { return 1 }},
		// Two MiB in flight is four batches held, and a few more filled
		// or on their way back (the reader makes a batch when none is
		// free yet): half the two dozen.
		{"every-cpu", func() batching { bt := defaultBatching(); bt.workers = 3; return bt }(), func(n int) int { return n / 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[*result]bool{}
			n := 0
			_, err := v.checkInput(context.Background(), strings.NewReader(sb.String()), source{name: "captures.ndjson", batching: &tc.bt},
				func(r *result) error {
					seen[r] = true
					n++
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) > tc.most(n) {
				t.Errorf("%d payloads were handed %d distinct results, want at most %d", n, len(seen), tc.most(n))
			}
		})
	}
}

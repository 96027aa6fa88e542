package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
)

// describeEach reads r with checkInput and writes each result, in order,
// as %+v on a line of its own, the error last.
func describeEach(t *testing.T, v *Validator, r io.Reader, name string, bt *batching) string {
	t.Helper()
	var out strings.Builder
	_, err := v.checkInput(context.Background(), r, source{name: name, batching: bt}, func(r *result) error {
		fmt.Fprintf(&out, "%+v\n", *r)
		return nil
	})
	fmt.Fprintf(&out, "error: %v\n", err)
	return out.String()
}

// streamed is what the reader reports of in, one by one, read as a stream
// (no offsets): what the ranges must report, byte for byte.
func streamed(t *testing.T, v *Validator, in, name string) string {
	t.Helper()
	return describeEach(t, v, iotest.HalfReader(strings.NewReader(in)), name, &batching{workers: 1})
}

// splitInputs are inputs whose ranges are cut where the reader must agree
// with the stream: every line of them is reported the same, at its line.
func splitInputs(t *testing.T) []struct{ name, in string } {
	one := compact(t, load(t, "receipt.json"))
	b, _ := json.Marshal(one)
	rec := `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","body":` + string(b) + `}`
	bad := strings.Replace(rec, `\"requestId\"`, `\"requestID\"`, 1)
	return []struct{ name, in string }{
		{"records and failing records", strings.Repeat(rec+"\n"+bad+"\n", 6)},
		// A string whose escapes a cut may fall between: \" \\ \n.
		{"cuts inside strings", strings.Repeat(`{"a":"x\"y\\z\n`+strings.Repeat("é", 40)+`","b":1}`+"\n"+one+"\n", 5)},
		// A raw LF inside a string is no JSON: it ends the line there, in
		// a range as in the stream.
		{"a line break inside a string", strings.Repeat(one+"\n"+`{"a":"x`+"\n"+`y"}`+"\n", 4)},
		{"blank lines and white space between", strings.Repeat(one+"\n\n  \n\t\r\n"+bad+"\n", 5)},
		{"CRLF", strings.Repeat(rec+"\r\n"+bad+"\r\n", 5)},
		{"a torn last line", strings.Repeat(rec+"\n", 7) + rec[:80]},
		{"a last line without its LF", strings.Repeat(bad+"\n", 7) + rec},
		{"one record", rec + "\n"},
		{"one torn record", rec[:200]},
		{"a byte-order mark first", "\xEF\xBB\xBF" + strings.Repeat(one+"\n", 5)},
		{"a line longer than a range between short ones", "{}\n[1]\n" + strings.Repeat(" ", 3000) + one + "\n" + strings.Repeat("{}\n", 40)},
		{"short lines", strings.Repeat("{}\n1\n\n", 200)},
	}
}

// TestCheckRanges reads inputs in ranges of many sizes, cut anywhere in a
// line (a record runs over one cut or several), and holds them to what the
// stream reports: the same results, at the same lines, in input order.
func TestCheckRanges(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	for _, tc := range splitInputs(t) {
		want := streamed(t, v, tc.in, "in.ndjson")
		for _, rb := range []int{1, 7, 64, 333, 1000, 2500, len(tc.in) / 2, len(tc.in) + 1} {
			for _, workers := range []int{2, 3} {
				bt := &batching{workers: workers, items: 512, bytes: rb, inFlight: 1 << 20}
				got := describeEach(t, v, bytes.NewReader([]byte(tc.in)), "in.ndjson", bt)
				if got != want {
					t.Fatalf("%s in ranges of %d bytes on %d workers:\n%s\nthe stream:\n%s", tc.name, rb, workers, got, want)
				}
			}
		}
	}
}

// A regular file is read in ranges (offsets): its results are the
// stream's, from wherever the file's reading starts.
func TestCheckRangesOfAFile(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	for _, tc := range splitInputs(t) {
		path := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got := describeEach(t, v, f, "in.ndjson", &batching{workers: 2, items: 512, bytes: 700, inFlight: 1 << 20})
		f.Close()
		if want := streamed(t, v, tc.in, "in.ndjson"); got != want {
			t.Fatalf("%s from a file:\n%s\nthe stream:\n%s", tc.name, got, want)
		}
	}
}

// Line numbers after a cut count every line of the ranges before it,
// blank ones too: ranges of 5 bytes hold a line or two each, and the
// failing payloads are on every other line, the last on line 11.
func TestCheckRangesLineAfterTheCut(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	in := strings.Repeat("{}\n\n", 4) + "[]\n\n" + "{\"a\":\n"
	var lines []int
	_, err := v.checkInput(context.Background(), strings.NewReader(in), source{name: "in.ndjson", batching: &batching{workers: 2, bytes: 5}},
		func(r *result) error {
			if r.Failed {
				lines = append(lines, r.Line)
			}
			return nil
		})
	if err != nil || fmt.Sprint(lines) != "[1 3 5 7 9 11]" {
		t.Fatalf("failed lines %v, %v; want [1 3 5 7 9 11]", lines, err)
	}
}

// changingInput is an input whose size, as Size reports it, is not what it
// holds: a file that grew, or shrank, after it was opened.
type changingInput struct {
	*bytes.Reader
	size int64
}

func (c changingInput) Size() int64 { return c.size }

// A file that grows while read is read on past its size when opened, as
// the stream reads it; one that shrinks ends where its bytes end.
func TestCheckRangesOfAChangingFile(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	for _, tc := range splitInputs(t) {
		want := streamed(t, v, tc.in, "in.ndjson")
		for _, size := range []int{len(tc.in) / 3, len(tc.in) - 1, len(tc.in) + 500, 2 * len(tc.in)} {
			in := changingInput{bytes.NewReader([]byte(tc.in)), int64(size)}
			got := describeEach(t, v, in, "in.ndjson", &batching{workers: 2, items: 512, bytes: 300, inFlight: 1 << 20})
			if got != want {
				t.Fatalf("%s, its size said to be %d of %d:\n%s\nthe stream:\n%s", tc.name, size, len(tc.in), got, want)
			}
		}
	}
}

// heldFirstRange holds the read of the first range (at offset from) until
// a read at or past after has begun: the ranges after it are checked
// first, and their results must still wait for the first's.
type heldFirstRange struct {
	*bytes.Reader
	from, after int64
	once        sync.Once
	went        chan struct{}
}

func (h *heldFirstRange) ReadAt(p []byte, off int64) (int, error) {
	switch {
	case off == h.from:
		<-h.went
	case off >= h.after:
		h.once.Do(func() { close(h.went) })
	}
	return h.Reader.ReadAt(p, off)
}

// Findings of two ranges are reported in input order, whichever range is
// checked first.
func TestCheckRangesReportInInputOrder(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	// The first line is read while detecting the kind; the ranges begin
	// after it, at from.
	first := "{}\n"
	// Every line of a range unlike those of the next: the syntax error's
	// column moves with the white space before it.
	var sb strings.Builder
	sb.WriteString(first)
	for i := range 80 {
		sb.WriteString(strings.Repeat(" ", i%20) + "{\"a\":\n")
	}
	in := sb.String()
	want := streamed(t, v, in, "in.ndjson")
	const rb = 60
	// A read past 2*rb+1 is of the third range's last line, or of the
	// fourth range: the second was checked before it.
	h := &heldFirstRange{Reader: bytes.NewReader([]byte(in)), from: int64(len(first)), after: int64(len(first)) + 2*rb + 1, went: make(chan struct{})}
	got := describeEach(t, v, h, "in.ndjson", &batching{workers: 2, items: 512, bytes: rb, inFlight: 1 << 20})
	if got != want {
		t.Fatalf("with the first range checked last:\n%s\nthe stream:\n%s", got, want)
	}
}

// countedReads counts the bytes read at offsets.
type countedReads struct {
	*bytes.Reader
	mu   sync.Mutex
	read int64
}

func (c *countedReads) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Reader.ReadAt(p, off)
	c.mu.Lock()
	c.read += int64(n)
	c.mu.Unlock()
	return n, err
}

// The ranges read the input about once: each its own bytes, a byte before
// them and its last line's rest (read a few KiB at a time), never the
// whole rest again as the stream would on a range that did not join.
func TestCheckRangesReadTheInputOnce(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	one := compact(t, load(t, "receipt.json"))
	in := strings.Repeat(one+"\n", 100) // some 190 KB, lines of 1.9 KB
	// Ranges of 40 KiB: a range that did not join, and the stream reading
	// on from there, reads more than the ranges' tails could.
	const rb = 40 << 10
	c := &countedReads{Reader: bytes.NewReader([]byte(in))}
	got := describeEach(t, v, c, "in.ndjson", &batching{workers: 2, items: 512, bytes: rb, inFlight: 1 << 20})
	if want := streamed(t, v, in, "in.ndjson"); got != want {
		t.Fatalf("in ranges:\n%s\nthe stream:\n%s", got, want)
	}
	ranges := int64(len(in)/rb + 1)
	if limit := int64(len(in)) + ranges*(1+4<<10); c.read > limit {
		t.Fatalf("the ranges read %d bytes of %d at offsets, more than %d", c.read, len(in), limit)
	}
}

// The result lists' budget: the range to be reported next never waits
// (else the caller would wait for it for ever), a later one waits while
// the lists held fill the budget, and every waiting range goes once the
// caller stops.
func TestResultBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newResultBudget(10)
		b.take(0, 100) // next: over the budget, alone
		var took [3]bool
		go func() { b.take(1, 5); took[1] = true }()
		synctest.Wait()
		if took[1] {
			t.Fatal("range 1 took 5 bytes while range 0 held 100 of 10")
		}
		b.give(100, 1)
		synctest.Wait()
		if !took[1] {
			t.Fatal("range 1 waits after range 0 was reported")
		}
		go func() { b.take(2, 6); took[2] = true }()
		synctest.Wait()
		if took[2] {
			t.Fatal("range 2 took 6 bytes beside range 1's 5 of 10")
		}
		b.stop()
		synctest.Wait()
		if !took[2] {
			t.Fatal("range 2 waits after the caller stopped")
		}
	})
}

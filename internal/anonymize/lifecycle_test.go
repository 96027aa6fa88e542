package anonymize

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// lifecycleCaptures records, as listen would, both lifecycles of several
// documents in both shapes: what a team captures in staging.
func lifecycleCaptures(t *testing.T) (captures []byte, bodies [][]byte) {
	t.Helper()
	for seed := uint64(1); seed <= 6; seed++ {
		for _, s := range spec.Shapes() {
			for _, sc := range payload.Scenarios() {
				lives, err := sc.Lives(payload.New(seed, payload.Anchor()), s, seed, 2, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, life := range lives {
					for _, step := range life {
						body := payload.Marshal(step.Doc)
						rec := &capture.Record{Time: payload.Anchor(), Remote: "127.0.0.1:40000", Method: "POST", Path: "/hook",
							Query:   "businessType=" + step.Event.Name,
							Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}}}
						rec.SetBody(body)
						if captures, err = capture.Append(captures, rec); err != nil {
							t.Fatal(err)
						}
						bodies = append(bodies, body)
					}
				}
			}
		}
	}
	return captures, bodies
}

// identifiers lists the values of body's identifying fields, by path.
func identifiers(t *testing.T, a *anonymizer, body []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if err := walkStrings(body, func(path string, _, _ int, v string) {
		if _, ok := a.classes[path]; ok && v != "" {
			out[path] = append(out[path], v)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCapturedLifecyclesAnonymize(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	in, bodies := lifecycleCaptures(t)
	out, st := stream(t, a, in, Options{Check: true})
	if st.Records != len(bodies) || len(st.Leaks) != 0 {
		t.Fatalf("records %d of %d, leaks %+v", st.Records, len(bodies), st.Leaks)
	}
	rd := capture.NewReader(bytes.NewReader(out))
	var anon [][]byte
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := rec.RequestBody()
		anon = append(anon, b)
	}
	// No original identifier survives anywhere in the output. A value so
	// short that it stands inside other text by chance (a one-digit code)
	// is left out of the search, and so are the stand-ins: one may hold
	// an original by chance (张丹 in the stand-in 张丹鹏, a staff code 1428
	// in 931428), which tells nobody that 张丹 was there.
	quoted := func(v string) []byte { return []byte(strings.Trim(strconv.Quote(v), `"`)) }
	originals := map[string]string{}
	for _, body := range bodies {
		for path, vs := range identifiers(t, a, body) {
			for _, v := range vs {
				if len(v) >= minEcho {
					originals[v] = path
				}
			}
		}
	}
	searched := out
	for _, b := range anon {
		for _, vs := range identifiers(t, a, b) {
			for _, v := range vs {
				if _, orig := originals[v]; !orig && v != "" {
					searched = bytes.ReplaceAll(searched, quoted(v), []byte("\x00"))
				}
			}
		}
	}
	for v, path := range originals {
		if survives(searched, quoted(v)) {
			t.Errorf("%s %q survives in the output", path, v)
		}
	}
	for i, b := range anon {
		ids := identifiers(t, a, b)
		for _, tax := range ids["data.taxCode"] {
			if !independentUSCC(tax) {
				t.Errorf("record %d: tax id %q fails the check characters", i, tax)
			}
		}
		for _, p := range []string{"data.staffName", "data.applicationName"} {
			for _, name := range ids[p] {
				wantHan(t, name, 2, 4)
			}
		}
		var before, after any
		mustUnmarshal(t, bodies[i], &before)
		mustUnmarshal(t, b, &after)
		kept := map[string]bool{}
		for p := range identifiers(t, a, bodies[i]) {
			kept[p] = true
		}
		compareKept(t, "", before, after, kept)
	}
	// A document's events carry the same document: CREATE and ABANDON, or
	// CREATE and AUDIT, keep sharing their numbers after anonymizing.
	for i := 0; i+1 < len(anon); i += 2 {
		for _, path := range []string{"data.收款单.收款单编号", "data.code", "data.invoiceCode"} {
			first, second := member(t, anon[i], path), member(t, anon[i+1], path)
			if first != second {
				t.Errorf("records %d and %d: %s %q and %q, want one document", i, i+1, path, first, second)
			}
		}
	}
}

// survives reports whether v stands in out where the anonymizer replaces
// it: anywhere, or, for a short code of letters and digits (a staff code
// 1672), only as a token of its own, as tokenAt finds it: 1672 in the
// amount 167269.68 is no staff code.
func survives(out, v []byte) bool {
	if !shortToken(string(v), allDigits(string(v))) {
		return bytes.Contains(out, v)
	}
	for i := 0; ; {
		j := bytes.Index(out[i:], v)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(v)
		if (j == 0 || tokenEdge(out[j-1])) && (end == len(out) || tokenEdge(out[end])) {
			return true
		}
		i = j + 1
	}
}

// member reads the string at a dotted path of body ("" when absent).
func member(t *testing.T, body []byte, path string) string {
	t.Helper()
	out := ""
	_ = jsonlex.Walk(body, func(p []jsonlex.Seg, v jsonlex.Value) {
		var keys []string
		for _, s := range p {
			keys = append(keys, s.Key)
		}
		if strings.Join(keys, ".") == path && v.Kind == jsonlex.String {
			out = jsonlex.StringAt(body, v.Span)
		}
	})
	return out
}

func TestCapturedLifecyclesValidateAsBefore(t *testing.T) {
	in, _ := lifecycleCaptures(t)
	a := newTestAnonymizer(t, testKey)
	var out bytes.Buffer
	if _, err := a.Stream(context.Background(), bytes.NewReader(in), &out, Options{Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(in, out.Bytes()) {
		t.Fatal("nothing changed")
	}
}

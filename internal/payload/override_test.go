package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

func testDoc() *Obj {
	return new(Obj).
		add("requestId", "r").
		add("data", new(Obj).
			add("status", "PASS").
			add("items", []any{new(Obj).add("quantity", int64(1)).add("tax", int64(2)), new(Obj).add("quantity", int64(5))}).
			add("收款单", new(Obj).add("汇率", int64(1))))
}

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sets    []string
		unsets  []string
		want    string // compact JSON of data
		wantErr string
	}{
		{name: "string value", sets: []string{"data.status=REFUSAL"},
			want: `{"status":"REFUSAL","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1}}`},
		{name: "json values", sets: []string{"data.items.0.quantity=3", `data.status=null`, `data.收款单.汇率=7.1`},
			want: `{"status":null,"items":[{"quantity":3,"tax":2},{"quantity":5}],"收款单":{"汇率":7.1}}`},
		{name: "quoted string stays a string", sets: []string{`data.status="123"`},
			want: `{"status":"123","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1}}`},
		{name: "object value and new keys", sets: []string{`data.extra={"a": [1, 2]}`, "data.new.deep=x"},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1},"extra":{"a":[1,2]},"new":{"deep":"x"}}`},
		{name: "append at the end of an array", sets: []string{"data.items.2.quantity=9"},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5},{"quantity":9}],"收款单":{"汇率":1}}`},
		{name: "unset a field and an element", unsets: []string{"data.items.0.tax", "data.items.1"},
			want: `{"status":"PASS","items":[{"quantity":1}],"收款单":{"汇率":1}}`},
		{name: "escaped dot", sets: []string{`data.a\.b=1`},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1},"a.b":1}`},
		{name: "index past the end", sets: []string{"data.items.5.x=1"}, wantErr: "--set data.items.5.x: index past the end of an array of 2 at data.items.5"},
		// A later --set or --unset goes into an object or array an
		// earlier --set gave, as into a generated one.
		{name: "into an object a set gave", sets: []string{`data.extra={"a": 1}`, "data.extra.b=2"},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1},"extra":{"a":1,"b":2}}`},
		{name: "into an array a set gave", sets: []string{"data.items=[]", "data.items.0.tax=1"},
			want: `{"status":"PASS","items":[{"tax":1}],"收款单":{"汇率":1}}`},
		{name: "into an element a set gave", sets: []string{"data.items.0={}", "data.items.0.tax=1"},
			want: `{"status":"PASS","items":[{"tax":1},{"quantity":5}],"收款单":{"汇率":1}}`},
		{name: "unset inside a set value", sets: []string{`data.extra={"a":1,"b":[1,2.50]}`}, unsets: []string{"data.extra.a", "data.extra.b.0"},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1},"extra":{"b":[2.50]}}`},
		{name: "past the end of a set array", sets: []string{"data.items=[]", "data.items.1.tax=1"}, wantErr: "--set data.items.1.tax: index past the end of an array of 0 at data.items.1"},
		{name: "through a set scalar", sets: []string{"data.extra=5", "data.extra.x=1"}, wantErr: "--set data.extra.x: no object or array at data.extra"},
		{name: "a set value not gone into keeps its bytes", sets: []string{`data.extra={"a":1,"\u0061":2}`},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1},"extra":{"a":1,"\u0061":2}}`},
		{name: "index into an object is a key", sets: []string{"data.收款单.0=1"},
			want: `{"status":"PASS","items":[{"quantity":1,"tax":2},{"quantity":5}],"收款单":{"汇率":1,"0":1}}`},
		{name: "key into an array", sets: []string{"data.items.x=1"}, wantErr: "not an array index at data.items.x"},
		{name: "through a scalar", sets: []string{"data.status.x=1"}, wantErr: "--set data.status.x: no object or array at data.status"},
		{name: "unset missing", unsets: []string{"data.nope"}, wantErr: "--unset data.nope: no such field"},
		{name: "unset under missing", unsets: []string{"data.nope.x"}, wantErr: "--unset data.nope.x: no field at data.nope"},
		{name: "unset element past the end", unsets: []string{"data.items.2"}, wantErr: "no element at data.items.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ovs []Override
			for _, s := range tt.sets {
				ov, err := parseSet(s)
				if err != nil {
					t.Fatal(err)
				}
				ovs = append(ovs, ov)
			}
			for _, s := range tt.unsets {
				ov, err := parseUnset(s)
				if err != nil {
					t.Fatal(err)
				}
				ovs = append(ovs, ov)
			}
			doc := testDoc()
			err := Apply(doc, ovs)
			if tt.wantErr != "" {
				var pe *PathError
				if !errors.As(err, &pe) || !strings.HasSuffix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want a PathError ending in %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := doc.Get("data")
			if got := string(Marshal(data)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestOverridePaths(t *testing.T) {
	t.Parallel()
	set := func(s string) Override { ov, _ := parseSet(s); return ov }
	unset := func(s string) Override { ov, _ := parseUnset(s); return ov }
	tests := []struct {
		name string
		ovs  []Override
		want [][]string
	}{
		{name: "none", want: nil},
		{name: "sets and unsets in order", ovs: []Override{set("data.code=INV-1"), unset(`data.a\.b`), set("requestId=x")},
			want: [][]string{{"data", "code"}, {"data", "a.b"}, {"requestId"}}},
	}
	for _, tt := range tests {
		got := OverridePaths(tt.ovs)
		if !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("%s: OverridePaths = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseSetAndPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		path    string
		wantErr string
	}{
		{in: "data.status=PASS", path: "data.status"},
		{in: "data.items.0.quantity=3", path: "data.items.0.quantity"},
		{in: "a=b=c", path: "a"},
		{in: "data..x=1", wantErr: `path "data..x": empty segment at byte 5`},
		{in: ".x=1", wantErr: "empty segment at byte 0"},
		{in: "x.=1", wantErr: "empty segment at the end"},
		{in: "=1", wantErr: "empty path"},
		{in: "novalue", wantErr: "want <path>=<value>"},
	}
	for _, tt := range tests {
		ov, err := parseSet(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSet(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || ov.Path.String() != tt.path {
			t.Errorf("ParseSet(%q) = %q, %v; want path %q", tt.in, ov.Path, err, tt.path)
		}
	}
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	strs := []string{"plain", "收款单 汇率", "quote\" back\\slash", "ctl\x00\x01\x1f\n\r\t", "<html>&amp;", "\u2028\u2029", "bad\xffutf8", "😀"}
	for _, s := range strs {
		got := Marshal(s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q encodes to invalid JSON %s: %v", s, got, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if back != want {
			t.Errorf("%q round-trips to %q", s, back)
		}
	}
	doc := New(1, Anchor()).Build(spec.Events()[2], spec.Sample)
	var v any
	if err := json.Unmarshal(Marshal(doc), &v); err != nil {
		t.Fatalf("generated document is not JSON: %v", err)
	}
	if !bytes.HasSuffix(MarshalIndent(doc), []byte("}\n")) {
		t.Errorf("MarshalIndent does not end in a newline")
	}
}

func TestSeedsAreReproducibleAndDistinct(t *testing.T) {
	t.Parallel()
	for _, e := range spec.Events() {
		a := Marshal(New(42, Anchor()).Build(e, spec.Described))
		b := Marshal(New(42, Anchor()).Build(e, spec.Described))
		c := Marshal(New(43, Anchor()).Build(e, spec.Described))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: seed 42 differs between runs", e.Name)
		}
		if bytes.Equal(a, c) {
			t.Errorf("%s: seeds 42 and 43 give the same bytes", e.Name)
		}
	}
	// Without a seed each run draws a new one.
	e := spec.Events()[0]
	if bytes.Equal(Marshal(New(0, Anchor()).Build(e, spec.Described)), Marshal(New(0, Anchor()).Build(e, spec.Described))) {
		t.Errorf("unseeded runs gave the same bytes")
	}
}

func TestScenarioReusesData(t *testing.T) {
	t.Parallel()
	g := New(7, Anchor())
	create, abandon := spec.Events()[2], spec.Events()[3]
	data := g.Data(create, spec.Described)
	a, b := g.Envelope(create, spec.Described, data), g.Envelope(abandon, spec.Described, data.Clone())
	da, _ := a.Get("data")
	db, _ := b.Get("data")
	// The same document, voided: only its 单据状态 tells the two apart.
	setDocState(t, db.(*Obj), docState(t, da.(*Obj)))
	if !bytes.Equal(Marshal(da), Marshal(db)) {
		t.Errorf("the voided receipt's data differs from the created one's beyond its 单据状态")
	}
	ia, _ := a.Get("requestId")
	ib, _ := b.Get("requestId")
	if ia == ib {
		t.Errorf("two deliveries share requestId %v", ia)
	}
}

func BenchmarkGenerateReceipt(b *testing.B) {
	src := NewSource(1, Anchor(), spec.Sample, nil)
	e := spec.Events()[2]
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		doc, _ := src.Next(e)
		buf = appendJSON(buf[:0], doc)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkGenerateInvoice(b *testing.B) {
	src := NewSource(1, Anchor(), spec.Described, nil)
	e := spec.Events()[0]
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		doc, _ := src.Next(e)
		buf = appendJSON(buf[:0], doc)
	}
	b.SetBytes(int64(len(buf)))
}

// FuzzParseSet: --set and --unset never panic; a path they take has no
// empty segment, and one whose keys end in no backslash prints back as it
// was read.
func FuzzParseSet(f *testing.F) {
	for _, s := range []string{"data.status=REFUSAL", `data.收款单.汇率=7.1`, `data.a\.b=1`, "data..x=1", "=", "data.items.0.quantity={\"a\":[1]}", `x\`, `a\\.b=2`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := parseSet(s)
		if err == nil {
			k, _, _ := strings.Cut(s, "=")
			checkPath(t, k, set.Path)
		}
		if unset, err := parseUnset(s); err == nil {
			checkPath(t, s, unset.Path)
		}
	})
}

func checkPath(t *testing.T, s string, p path) {
	t.Helper()
	plain := true
	for _, seg := range p {
		if seg == "" {
			t.Fatalf("%q: empty segment in %q", s, []string(p))
		}
		plain = plain && !strings.HasSuffix(seg, `\`)
	}
	if again, err := ParsePath(p.String()); plain && (err != nil || !slices.Equal(again, p)) {
		t.Fatalf("%q: %q prints as %q, which reads %q (%v)", s, []string(p), p.String(), []string(again), err)
	}
}

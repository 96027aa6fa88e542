package anonymize

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// Over 2,000 generated payloads (thousands of companies, people and codes)
// every stand-in stands for one value of its class: records that had
// nothing in common are never linked by a shared stand-in. (48 trade names
// by 22 industries once gave 2,962 companies 1,569 stand-ins.)
func TestStandInsAreOneToOnePerClass(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	g := payload.New(7, payload.Anchor())
	of := map[class]map[string]string{}    // value -> stand-in
	owner := map[class]map[string]string{} // stand-in -> value
	events := spec.Events()
	for i := range 2000 {
		e, s := events[i%len(events)], spec.Shapes()[i/len(events)%len(spec.Shapes())]
		_, repl, err := a.Payload(payload.Marshal(g.Build(e, s)))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range repl {
			if x.text {
				continue
			}
			if of[x.Class] == nil {
				of[x.Class], owner[x.Class] = map[string]string{}, map[string]string{}
			}
			if prev, ok := of[x.Class][x.Old]; ok && prev != x.New {
				t.Errorf("%s %q: stand-ins %q and %q", x.Class, x.Old, prev, x.New)
			}
			of[x.Class][x.Old] = x.New
			if o, ok := owner[x.Class][x.New]; ok && o != x.Old && replaceable(x.Old) {
				t.Errorf("%s: %q and %q share the stand-in %q", x.Class, o, x.Old, x.New)
			}
			owner[x.Class][x.New] = x.Old
		}
	}
	for c, min := range map[class]int{companyName: 1500, personName: 1000, code: 5000, TaxID: 500} {
		if len(of[c]) < min {
			t.Errorf("only %d distinct %ss: the test needs more to mean anything", len(of[c]), c)
		}
		t.Logf("%d %ss, %d stand-ins", len(of[c]), c, len(owner[c]))
	}
}

// The shapes found in free text never fire on what whsim generates: over
// 2,000 generated payloads (amounts, times, invoice numbers, requestIds,
// item attributes, remarks) no landline, bank card, bank account, street
// address or name in pinyin is found, so no value outside the identifying
// fields changes for them.
func TestFreeTextShapesKeepGeneratedPayloads(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	g := payload.New(11, payload.Anchor())
	events := spec.Events()
	for i := range 2000 {
		e, s := events[i%len(events)], spec.Shapes()[i/len(events)%len(spec.Shapes())]
		body := payload.Marshal(g.Build(e, s))
		_, repl, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range repl {
			if x.text && x.Class == Echo && x.Old != "" && x.New != x.Old {
				p := &pass{a: a, ctx: context.Background(), counts: Report{}}
				p.str(x.Old)
				for _, c := range []class{landline, bankCard, bankAccount, streetAddress, pinyinName} {
					if p.counts[c] > 0 {
						t.Errorf("%s: %q taken for a %s in %s", x.Path, x.Old, c, body)
					}
				}
			}
		}
	}
}

// A stand-in drawn before the value it equals was met (an earlier record's
// staff code, drawn YG-and-four-digits, is a later record's own staff code)
// is drawn again once the whole input is known: otherwise the later
// record's code stood in the output as the earlier one's stand-in, and
// --check, which takes a stand-in for no leak, passed it.
func TestStandInIsNoLaterOriginal(t *testing.T) {
	t.Parallel()
	first := "YG1234"
	r, err := newReplacer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	later := r.Replace(code, first) // what the first code becomes, met alone
	body := func(staff string) string {
		return `{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":4000,"data":{"staffCode":"` + staff +
			`","comments":"经办` + staff + `"}}`
	}
	in := body(first) + "\n" + body(later) + "\n"
	a := newTestAnonymizer(t, testKey)
	var out bytes.Buffer
	st, err := a.Stream(context.Background(), strings.NewReader(in), &out, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, orig := range []string{first, later} {
		if strings.Contains(out.String(), orig) {
			t.Errorf("the original staff code %q stands in the output:\n%s", orig, out.String())
		}
	}
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Fatalf("want two records, got %d lines:\n%s", n, out.String())
	}
	if len(st.Leaks) != 0 {
		t.Errorf("--check found %v", st.Leaks)
	}
}

// No name of a person or a company in the input stands anywhere in the
// output, not even inside another's stand-in: a two-character name (陈萍)
// was the start of another person's three-character stand-in (陈萍磊) for
// one name in sixteen of a 2,000-call capture, and a search of the output
// for the capture's names (grep, a reviewer's, an acceptance test's)
// found them.
func TestNoNameStandsInsideAStandIn(t *testing.T) {
	t.Parallel()
	g := payload.New(13, payload.Anchor())
	events := spec.Events()
	var in bytes.Buffer
	for i := range 2000 {
		e, s := events[i%len(events)], spec.Shapes()[i/len(events)%len(spec.Shapes())]
		in.Write(payload.Marshal(g.Build(e, s)))
		in.WriteByte('\n')
	}
	a := newTestAnonymizer(t, testKey)
	var out bytes.Buffer
	if _, err := a.Stream(context.Background(), bytes.NewReader(in.Bytes()), &out, Options{}); err != nil {
		t.Fatal(err)
	}
	// The names, read back from the input by their fields.
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(in.String()), "\n") {
		_, repl, err := newTestAnonymizer(t, testKey).Payload([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range repl {
			if !x.text && (x.Class == personName || x.Class == companyName) {
				names[x.Old] = true
			}
		}
	}
	if len(names) < 1000 {
		t.Fatalf("only %d names: the test needs more to mean anything", len(names))
	}
	text := out.String()
	found := 0
	for n := range names {
		if strings.Contains(text, n) {
			if found++; found <= 5 {
				i := strings.Index(text, n)
				t.Errorf("the input's name %q stands in the output: …%s…", n, text[max(0, i-30):min(len(text), i+len(n)+30)])
			}
		}
	}
	if found > 5 {
		t.Errorf("and %d more", found-5)
	}
}

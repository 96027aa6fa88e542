package spec

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// parseQueryEvent reads the event as a Go receiver does:
// Request.URL.Query, which skips the pairs that do not parse.
func parseQueryEvent(q string) (string, bool) {
	p := (&url.URL{RawQuery: q}).Query()
	if !p.Has(QueryParam) {
		return "", false
	}
	return p.Get(QueryParam), true
}

func TestQueryEvent(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x=1&", 100) + "businessType=Z"
	for _, c := range []struct {
		q    string
		want string
		has  bool
	}{
		{"", "", false},
		{"businessType=A", "A", true},
		{"x=1&businessType=A&businessType=B", "A", true}, // repeated: the first
		{"businessType", "", true},                       // no '=': there, empty
		{"businessType=", "", true},                      // empty value
		{"&&businessType=A=B&", "A=B", true},
		{"businesstype=A", "", false}, // the name is case-sensitive
		{"BUSINESSTYPE=A", "", false},
		{"a=1;businessType=A", "", false}, // ';' is no separator: the query does not parse
		{"businessType=A;b=1", "", false},
		{"businessType=A%20B", "A B", true},
		{"businessType=A+B", "A B", true},
		{"business%54ype=A", "A", true}, // an escaped name
		{"businessType=%zz", "", false}, // a pair that does not parse is skipped
		// as Go's Request.URL.Query (and Express, PHP) read the other pairs
		{"x=%zz&businessType=A", "A", true},
		{"x=a;b&businessType=A", "A", true},
		{"businessType=A&x=a;b", "A", true},
		{"=A&businessType", "", true},
		{"businessType=INVOICE_CREATED&x=%41", "INVOICE_CREATED", true},
		{long, "Z", true},
		{strings.Repeat("x=1&", 100) + "businessType=%5A", "Z", true},
	} {
		v, has := QueryEvent(c.q)
		if v != c.want || has != c.has {
			t.Errorf("QueryEvent(%q) = %q, %v; want %q, %v", c.q, v, has, c.want, c.has)
		}
		if pv, ph := parseQueryEvent(c.q); v != pv || has != ph {
			t.Errorf("QueryEvent(%q) = %q, %v; Request.URL.Query reads %q, %v", c.q, v, has, pv, ph)
		}
	}
}

func TestQueryRoundTrip(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"INVOICE_CREATED", "", "a b&c=d;%", "ü"} {
		q := Query(e)
		if !strings.HasPrefix(q, QueryParam+"=") {
			t.Errorf("Query(%q) = %q", e, q)
		}
		if v, has := QueryEvent(q); v != e || !has {
			t.Errorf("QueryEvent(Query(%q)) = %q, %v", e, v, has)
		}
	}
}

// QueryEvent reads every query as a Go receiver's Request.URL.Query does.
func FuzzQueryEvent(f *testing.F) {
	for _, s := range []string{"businessType=A", "x=1&businessType=A&businessType=B", "a=1;businessType=A", "businessType=%zz", "businessType=A+B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		v, has := QueryEvent(q)
		if pv, ph := parseQueryEvent(q); v != pv || has != ph {
			t.Errorf("QueryEvent(%q) = %q, %v; Request.URL.Query reads %q, %v", q, v, has, pv, ph)
		}
	})
}

// A query that names the event more than once is read by receivers in
// different ways (Go's Query().Get the first, PHP's $_GET the last,
// Spring's @RequestParam String both joined, Express an array):
// QueryRepeats gives every value, the same or not; RepeatedReading says
// what each reads, naming the values.
func TestQueryRepeats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"businessType=A", nil},
		{"businessType=A&businessType=A", []string{"A", "A"}}, // Spring reads "A,A"
		{"businessType=A&businessType=B", []string{"A", "B"}},
		{"x=1&businessType=A&y=2&businessType=A&businessType=C", []string{"A", "A", "C"}},
		{"businessType=A&business%54ype=B", []string{"A", "B"}},
		{"businessType=A&businessType", []string{"A", ""}}, // a second, empty one
		{"businessType=A&businessType=%zz", nil},           // does not parse: Go reads one
		{"", nil},
	} {
		if got := QueryRepeats(c.q); !slices.Equal(got, c.want) {
			t.Errorf("QueryRepeats(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	msg := RepeatedReading([]string{"A", "B"})
	for _, want := range []string{`"A"`, `"B"`, `"A,B"`, "Spring", "PHP", "Express"} {
		if !strings.Contains(msg, want) {
			t.Errorf("RepeatedReading: %q lacks %s", msg, want)
		}
	}
	if msg := RepeatedReading([]string{"A", "A"}); !strings.Contains(msg, `"A,A"`) {
		t.Errorf("RepeatedReading of one value twice: %q lacks what a receiver that joins them reads", msg)
	}
}

// TestQuerySkipped: a businessType pair that does not parse is found, with
// why, so that "no businessType" is not said of a query that names one.
func TestQuerySkipped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q, pair, why string
	}{
		{"businessType=A;b=1", "businessType=A;b=1", "invalid semicolon separator in query"},
		{"x=1&businessType=A;b=1", "businessType=A;b=1", "invalid semicolon separator in query"},
		{"businessType=%zz", "businessType=%zz", `invalid URL escape "%zz"`},
		{"business%54ype=A;b", "business%54ype=A;b", "invalid semicolon separator in query"},
		{"a=1;businessType=A", "", ""}, // split on '&' alone, the name is "a": no businessType either way
		{"businessType=A", "", ""},
		{"", "", ""},
		{"x=%zz", "", ""},
		{"businesstype=A;b", "", ""},
	} {
		pair, err := QuerySkipped(c.q)
		why := ""
		if err != nil {
			why = err.Error()
		}
		if pair != c.pair || why != c.why {
			t.Errorf("QuerySkipped(%q) = %q, %q; want %q, %q", c.q, pair, why, c.pair, c.why)
		}
	}
}

// A query without the parameter says so, and names a pair that is the
// parameter but for its case or spaces: most receivers read it as another.
func TestNoEvent(t *testing.T) {
	const other = `, another parameter to Spring's @RequestParam, Go's URL.Query, Express and PHP, which match names as written (ASP.NET Core alone ignores case)`
	for _, tc := range []struct{ query, want string }{
		{"", "no businessType"},
		{"x=1&event=CREATE_RECEIVABLE_DOC", "no businessType"},
		{"BusinessType=CREATE_RECEIVABLE_DOC", `no businessType: it names "BusinessType"` + other},
		{"x=1&businesstype=A&BUSINESSTYPE=B", `no businessType: it names "businesstype"` + other},
		{"businessType%20=CREATE_RECEIVABLE_DOC", `no businessType: it names "businessType "` + other},
		{"businessType=A;x=1", `no businessType a Go receiver reads: its pair "businessType=A;x=1" does not parse (invalid semicolon separator in query), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it`},
	} {
		if got := NoEvent(tc.query); got != tc.want {
			t.Errorf("NoEvent(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// An unknown event names the one it is likely a slip of.
func TestUnknownQueryEvent(t *testing.T) {
	const valid = "valid: CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC, ABANDON_RECEIVABLE_DOC)"
	for _, tc := range []struct{ event, want string }{
		{"create_receivable_doc", `unknown event "create_receivable_doc" (did you mean "CREATE_RECEIVABLE_DOC"? ` + valid},
		{" CREATE_RECEIVABLE_DOC\n", `unknown event " CREATE_RECEIVABLE_DOC\n" (did you mean "CREATE_RECEIVABLE_DOC"? ` + valid},
		{"AUDIT_PURCHASE_ORDER_INVIOCE", `unknown event "AUDIT_PURCHASE_ORDER_INVIOCE" (did you mean "AUDIT_PURCHASE_ORDER_INVOICE"? ` + valid},
		{"FOO", `unknown event "FOO" (` + valid},
	} {
		if got := UnknownQueryEvent(tc.event); got != tc.want {
			t.Errorf("UnknownQueryEvent(%q) = %q, want %q", tc.event, got, tc.want)
		}
	}
}

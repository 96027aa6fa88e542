package threshold

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		metric  string
		op      string
		value   float64
		percent bool
	}{
		{"p99<500ms", "p99", "<", 500, false},
		{" p99.9 <= 1.5s ", "p99.9", "<=", 1500, false},
		{"max<250µs", "max", "<", 0.25, false},
		{"p50<100us", "p50", "<", 0.1, false},
		{"failed<1%", "failed", "<", 1, true},
		{"failed==0", "failed", "==", 0, false},
		{"failed!=3", "failed", "!=", 3, false},
		{"rps>=200", "rps", ">=", 200, false},
		{"rps>199.5/s", "rps", ">", 199.5, false},
		{"succeeded>99.5%", "succeeded", ">", 99.5, true},
		{"sent>=1000", "sent", ">=", 1000, false},
		// The bounds themselves: no latency below 0, no share above 100%.
		{"max>0ms", "max", ">", 0, false},
		{"failed<=100%", "failed", "<=", 100, true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got.Metric.Name != tt.metric || got.Op != tt.op || got.Value != tt.value || got.Percent != tt.percent {
			t.Errorf("Parse(%q) = %+v", tt.in, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"p95<1s", `unknown metric "p95" (metrics: sent, succeeded, failed`},
		{"latency<1s", `unknown metric "latency"`},
		{"p99", "want <metric><op><value>"},
		{"<5", "no metric before <"},
		{"p99<", "no value after <"},
		{"p99<500", "want a duration like 500ms"},
		{"p99<-1s", "not negative"},
		{"failed<abc", "is a count"},
		{"failed<101%", "at most 100%"},
		{"sent<5%", "give a count"},
		{"rps>fast", "deliveries per second"},
		{"rps>NaN", "deliveries per second"},
		// ParseFloat's other numbers: a value is a plain decimal.
		{"rps>0x10", `want a number like 200, not "0x10"`},
		{"rps>1_0", `want a number like 200, not "1_0"`},
		{"rps>Inf", `want a number like 200, not "Inf"`},
		{"failed<1e3", `failed is a count: want a number like 10`},
		{"failed<0x1p-1%", `failed is a count: want a number like 10`},
		{"failed<-1", "is a count"},
		// k6 writes a rate as a fraction (rate<0.5): here that is a
		// count of half a delivery, met only by none, so it is refused.
		{"failed<0.5", `failed is a count of deliveries, a whole number: for a share of sent write 50%`},
		{"duplicates<=2.5", `duplicates is a count of deliveries, a whole number, not 2.5`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	// A share may be a fraction of a percent, and a count a whole
	// number written with a point.
	for _, ok := range []string{"failed<=0.25%", "failed<2.0"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	var um *unknownMetricError
	if _, err := Parse("p95<1s"); !errors.As(err, &um) || um.Name != "p95" {
		t.Errorf("an unknown metric is not an UnknownMetricError: %v", err)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	m := Measured{"sent": 200, "failed": 3, "rps": 210.04, "p99": 512.5, "max": 3735.551, "p50": 0.45, "p90": 25.63}
	tests := []struct {
		in   string
		pass bool
		got  string
	}{
		{"p99<500ms", false, "512.5ms"},
		{"p99<=512.5ms", true, "512.5ms"},
		{"p99<1s", true, "512.5ms"},
		{"failed<1%", false, "1.5%"},
		{"failed<2%", true, "1.5%"},
		{"failed<=3", true, "3"},
		{"failed==0", false, "3"},
		// Each operator at its bound, where a strict one and its
		// non-strict twin part.
		{"failed>3", false, "3"},
		{"failed>=3", true, "3"},
		{"failed!=3", false, "3"},
		{"failed!=4", true, "3"},
		{"rps>=200", true, "210/s"},
		{"rps>300", false, "210/s"},
		{"late==0", true, "0"},
		// Latencies as the rest of the summary writes them, with digits
		// added only where the rounded value would read as the other
		// verdict.
		{"max<4s", true, "3.74s"},
		{"max<=3.73s", false, "3.74s"},
		{"max<3.736s", true, "3.7356s"},
		{"max>3.7355s", true, "3.74s"},
		{"p50<1ms", true, "450µs"},
		{"p90<=25.6ms", false, "25.63ms"},
	}
	for _, tt := range tests {
		th, err := Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		r := th.Check(m)
		if r.Pass != tt.pass || r.GotText() != tt.got {
			t.Errorf("%s: pass %v got %s, want %v %s", tt.in, r.Pass, r.GotText(), tt.pass, tt.got)
		}
	}
	// A latency of exactly a second is said in seconds, of exactly a
	// millisecond in milliseconds.
	for _, tt := range []struct {
		ms   float64
		want string
	}{{1000, "1.00s"}, {1, "1.0ms"}} {
		if got := mustParse(t, "p99<1h").Check(Measured{"p99": tt.ms}).GotText(); got != tt.want {
			t.Errorf("p99 of %vms reads %s, want %s", tt.ms, got, tt.want)
		}
	}
	// No call answered: a latency or a rate was not measured, and a
	// threshold on it does not hold (it read 'p99 0µs ok' and passed).
	for _, in := range []string{"p99<500ms", "max>=0s", "rps<5", "rps>=0"} {
		th, _ := Parse(in)
		r := th.Check(Measured{"sent": 3, "failed": 3})
		if r.Pass || !r.Unmeasured || r.GotText() != "not measured (no call was answered)" || r.JSON().Got != nil {
			t.Errorf("%s with no answer: pass %v, got %s, JSON got %v", in, r.Pass, r.GotText(), r.JSON().Got)
		}
	}
	// A share of nothing sent is 0%.
	th, _ := Parse("failed<1%")
	if r := th.Check(Measured{}); !r.Pass || r.Got != 0 {
		t.Errorf("failed<1%% of nothing: %+v", r)
	}
	rs := CheckAll([]Threshold{mustParse(t, "p99<500ms"), mustParse(t, "rps>=200")}, m)
	if f := Failed(rs); len(f) != 1 || f[0].String() != "p99<500ms (p99 512.5ms)" {
		t.Errorf("Failed = %v", f)
	}
}

func mustParse(t *testing.T, s string) Threshold {
	t.Helper()
	th, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// FuzzParse: any input parses to a threshold of a known metric or is an
// error, never a panic; what parses parses again from its Text to the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<500ms", "failed<1%", "rps>=200", "p99.9<=1.5s", "max!=0", "x", "<", "a<<b", "failed<1e400%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err != nil {
			return
		}
		if _, ok := lookup(th.Metric.Name); !ok {
			t.Fatalf("Parse(%q) gave metric %q", s, th.Metric.Name)
		}
		again, err := Parse(th.Text)
		if err != nil || again != th {
			t.Fatalf("Parse(%q) = %+v, from its Text %+v, %v", s, th, again, err)
		}
		_ = th.Check(Measured{Sent: 1, th.Metric.Name: 1}).GotText()
	})
}

// A threshold of a run that did not finish is not judged: it does not
// pass, Failed lists it, and its words and JSON say why, the value
// measured so far written as a judged one would be (digits as its own
// verdict needs).
func TestNotJudged(t *testing.T) {
	t.Parallel()
	m := Measured{"sent": 16, "failed": 0, "max": 3735.551}
	var ts []Threshold
	for _, s := range []string{"failed<1%", "max<3.736s", "p99<1s"} {
		th, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	const why = "interrupted after 16 of 200 calls"
	rs := NotJudged(CheckAll(ts, m), why)
	if n := len(Failed(rs)); n != 3 {
		t.Errorf("%d of 3 not judged listed as not passed, want 3", n)
	}
	for i, want := range []string{
		"failed<1% not judged: interrupted after 16 of 200 calls (failed 0% so far)",
		"max<3.736s not judged: interrupted after 16 of 200 calls (max 3.7356s so far)",
		"p99<1s not judged: interrupted after 16 of 200 calls (p99 not measured (no call was answered))",
	} {
		if rs[i].Pass || rs[i].String() != want {
			t.Errorf("pass %v, %q; want no pass, %q", rs[i].Pass, rs[i].String(), want)
		}
		if j := rs[i].JSON(); j.Pass || j.NotJudged != why {
			t.Errorf("JSON %+v: want pass false, notJudged %q", j, why)
		}
	}
}

package fault

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec string
		want Fault
		err  string // a part of the error, "" for none
	}{
		{"duplicate=0.1", Fault{Kind: Duplicate, Rate: 0.1}, ""},
		{"duplicate=10%", Fault{Kind: Duplicate, Rate: 0.1}, ""},
		{"DUPLICATE=1", Fault{Kind: Duplicate, Rate: 1}, ""},
		{"burst=0.2", Fault{Kind: Burst, Rate: 0.2, N: 3}, ""},
		{"burst=0.2:5", Fault{Kind: Burst, Rate: 0.2, Arg: "5", N: 5}, ""},
		{"delay=0.2:300ms", Fault{Kind: Delay, Rate: 0.2, Arg: "300ms", D: 300 * time.Millisecond}, ""},
		{"reorder=0.5", Fault{Kind: Reorder, Rate: 0.5, N: 4, D: time.Second}, ""},
		{"reorder=0.5:8", Fault{Kind: Reorder, Rate: 0.5, Arg: "8", N: 8, D: time.Second}, ""},
		{"reorder=0.5:250ms", Fault{Kind: Reorder, Rate: 0.5, Arg: "250ms", N: 64, D: 250 * time.Millisecond}, ""},
		{"truncate=0.01", Fault{Kind: Truncate, Rate: 0.01}, ""},
		{"new-request-id=0.3", Fault{Kind: NewRequestID, Rate: 0.3}, ""},
		{"drop=0.1", Fault{Kind: Drop, Rate: 0.1}, ""},
		{"lose-answer=0.1", Fault{Kind: LoseAnswer, Rate: 0.1}, ""},
		{"status=0.05:429", Fault{Kind: Status, Rate: 0.05, Arg: "429", Code: 429}, ""},

		{"", Fault{}, "want KIND=RATE[:ARG]"},
		{"duplicat=0.1", Fault{}, `unknown fault "duplicat" (did you mean "duplicate"?)`},
		{"lose_answer=0.1", Fault{}, `(did you mean "lose-answer"?)`},
		{"nonsense=0.1", Fault{}, "kinds: duplicate, burst, delay"},
		{"duplicate", Fault{}, "want duplicate=RATE, the share of calls"},
		{"delay", Fault{}, "want delay=RATE:DURATION"},
		{"duplicate=", Fault{}, `rate "": want a share of calls above 0 and at most 1 (0.1) or a percentage (10%)`},
		{"duplicate=x", Fault{}, `rate "x": not a decimal number: want a share`},
		{"duplicate=0", Fault{}, "above 0 and at most 1"},
		{"duplicate=1.5", Fault{}, "above 0 and at most 1"},
		{"duplicate=-0.1", Fault{}, "above 0 and at most 1"},
		{"duplicate=NaN", Fault{}, "want a share"},
		// ParseFloat's other numbers: a rate is a plain decimal.
		{"drop=0x1p-1", Fault{}, `rate "0x1p-1": not a decimal number: want a share`},
		{"drop=1_0%", Fault{}, `rate "1_0%": not a decimal number`},
		{"drop=Inf", Fault{}, `rate "Inf": not a decimal number`},
		{"drop=1e-1", Fault{}, `rate "1e-1": not a decimal number`},
		{"drop=1e309%", Fault{}, `rate "1e309%": not a decimal number`},
		{"duplicate=150%", Fault{}, "above 0 and at most 1"},
		{"duplicate=0.1:2", Fault{}, `duplicate takes no argument (got "2")`},
		{"drop=0.1:", Fault{}, "empty argument"},
		{"burst=0.1:1", Fault{}, "from 2 to 64"},
		{"burst=0.1:x", Fault{}, "from 2 to 64"},
		{"delay=0.1", Fault{}, "delay needs a duration"},
		{"delay=0.1:fast", Fault{}, `delay "fast": want a duration`},
		{"delay=0.1:-1s", Fault{}, "want a duration above 0"},
		{"delay=0.1:1h", Fault{}, "at most 5m0s"},
		{"reorder=0.1:1", Fault{}, "window of 2 to 64 calls"},
		{"reorder=0.1:2m", Fault{}, "at most 1m0s"},
		{"status=0.1", Fault{}, "status needs a code"},
		{"status=0.1:200", Fault{}, "from 400 to 599"},
		{"status=0.1:abc", Fault{}, "from 400 to 599"},
		// The argument where the rate goes, or before the '=': said so,
		// with the spelling that works.
		{"status=429", Fault{}, `rate "429": want a share of calls above 0 and at most 1 (0.1 hits one call in ten); did you mean status=RATE:429 (e.g. status=0.1:429)?`},
		{"delay=300ms", Fault{}, `did you mean delay=RATE:300ms (e.g. delay=0.1:300ms)?`},
		{"burst=5", Fault{}, `did you mean burst=RATE:5 (e.g. burst=0.1:5)?`},
		// Not "from 0 to 1": a rate of 0 is refused (it would fault nothing).
		{"burst=", Fault{}, `rate "": want a share of calls above 0 and at most 1 (0.1) or a percentage (10%)`},
		{"reorder=250ms", Fault{}, `did you mean reorder=RATE:250ms (e.g. reorder=0.1:250ms)?`},
		{"status:429=0.1", Fault{}, `unknown fault "status:429": the argument goes after the rate: status=0.1:429`},
		{"delay:300ms=20%", Fault{}, `unknown fault "delay:300ms": the argument goes after the rate: delay=20%:300ms`},
		{"status:429=0.1:5", Fault{}, `unknown fault "status:429": the argument goes after the rate: status=RATE:429 (e.g. status=0.1:429)`},
		{"status:429", Fault{}, `unknown fault "status:429": the argument goes after the rate: status=RATE:429 (e.g. status=0.1:429)`},
		{"drop:5=0.1", Fault{}, `unknown fault "drop:5" (did you mean "drop"?)`}, // drop takes no argument
		// Several faults in one: each goes in a --fault of its own; the
		// message was only that "0.1,duplicate=0.2" is no rate.
		{"drop=0.1,duplicate=0.2", Fault{}, `one fault per --fault: --fault drop=0.1 --fault duplicate=0.2 (in a config file or a WHSIM_ variable, a list: [drop=0.1, duplicate=0.2])`},
		{"drop=0.1, delay=0.2:300ms", Fault{}, `one fault per --fault: --fault drop=0.1 --fault delay=0.2:300ms (`},
		{"drop=0.1 status=0.1:429", Fault{}, `one fault per --fault: --fault drop=0.1 --fault status=0.1:429 (`},
		{"status=0.1:429,drop=0.1", Fault{}, `one fault per --fault: --fault status=0.1:429 --fault drop=0.1 (`},
		{"drop=0.1,dorp=0.2", Fault{}, `rate "0.1,dorp=0.2": not a decimal number: want a share`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := Parse(tt.spec)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) = %v, want an error with %q", tt.spec, err, tt.err)
				}
				if !strings.HasPrefix(err.Error(), fmt.Sprintf("%q: ", tt.spec)) {
					t.Errorf("error %q does not name the spec first", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.spec, err)
			}
			if got != tt.want {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.spec, got, tt.want)
			}
			// What it prints parses back to the same fault.
			again, err := Parse(got.String())
			if err != nil || again != got {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", got.String(), again, err, got)
			}
		})
	}
}

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan([]string{"duplicate=0.1", "delay=0.2:300ms", "status=0.05:429"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Describe(), "duplicate 10%, delay:300ms 20%, status:429 5%"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if _, err := ParsePlan([]string{"duplicate=0.6", "drop=0.5"}, 1); err == nil || !strings.Contains(err.Error(), "the rates add up to 1.1") {
		t.Errorf("rates over 1: %v", err)
	}
	// Just over 1: said with the digits that show it over, not "add up to 1".
	if _, err := ParsePlan([]string{"delay=1:5m", "drop=0.0001"}, 1); err == nil || !strings.Contains(err.Error(), "the rates add up to 1.0001:") {
		t.Errorf("rates just over 1: %v", err)
	}
	if _, err := ParsePlan([]string{"duplicate=0.1", "duplicate=0.2"}, 1); err == nil || !strings.Contains(err.Error(), "duplicate is given twice") {
		t.Errorf("twice: %v", err)
	}
	if _, err := ParsePlan([]string{"status=0.1:429", "status=0.1:503"}, 1); err != nil {
		t.Errorf("two status codes: %v", err)
	}
	// The same fault spelt apart was taken as two, counted (and a reorder
	// window held) apart.
	for _, tt := range []struct{ specs []string }{
		{[]string{"status=0.1:429", "status=0.2:0429"}},
		{[]string{"delay=0.1:1s", "delay=0.2:1000ms"}},
		{[]string{"reorder=0.1", "reorder=0.2:4"}},
		{[]string{"burst=0.1", "burst=0.2:3"}},
	} {
		_, err := ParsePlan(tt.specs, 1)
		if want := tt.specs[1][:strings.Index(tt.specs[1], "=")]; err == nil || !strings.Contains(err.Error(), " again; give it once") || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want the second refused as the first again", tt.specs, err)
		}
	}
	if _, err := ParsePlan([]string{"delay=0.1:1s", "delay=0.1:2s", "reorder=0.1:4", "reorder=0.1:1s"}, 1); err != nil {
		t.Errorf("faults that differ: %v", err)
	}
	if p, err := ParsePlan(nil, 1); err != nil || !p.Empty() {
		t.Errorf("no specs: %+v, %v", p, err)
	}
}

// The plan listen prints says a rate in percent as a person reads it:
// "drop 1e-05%" was a tiny rate, and no rate above 0 reads as "0%".
func TestDescribePercent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rate string
		want string
	}{
		{"1", "drop 100%"},
		{"0.5", "drop 50%"},
		{"0.001", "drop 0.1%"},
		{"0.00001", "drop 0.001%"},
		{"0.0000001", "drop 0.00001%"},
		{"0.123456", "drop 12.35%"},
		{"0.07", "drop 7%"},
		{"33.33333%", "drop 33.33%"},
		{"0." + strings.Repeat("0", 299) + "1", "drop 0." + strings.Repeat("0", 297) + "1%"},
	} {
		p, err := ParsePlan([]string{"drop=" + tt.rate}, 1)
		if err != nil {
			t.Fatalf("%s: %v", tt.rate, err)
		}
		if got := p.Describe(); got != tt.want {
			t.Errorf("rate %s: %q, want %q", tt.rate, got, tt.want)
		}
	}
}

// The draw follows from seed, key and attempt only, and each fault's
// share of many calls is near its rate.
func TestDraw(t *testing.T) {
	p, err := ParsePlan([]string{"duplicate=0.1", "drop=0.3", "lose-answer=0.2"}, 42)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	count := map[Kind]int{}
	for i := range n {
		key := fmt.Sprintf("id-%d", i)
		f, ok := p.Draw(key, 1)
		g, ok2 := p.Draw(key, 1)
		if ok != ok2 || f != g {
			t.Fatalf("Draw(%s) twice: %v %v, %v %v", key, f, ok, g, ok2)
		}
		if ok {
			count[f.Kind]++
		}
	}
	for _, f := range p.Faults {
		share := float64(count[f.Kind]) / n
		if share < f.Rate-0.02 || share > f.Rate+0.02 {
			t.Errorf("%s: share %.3f, rate %.2f", f.Kind, share, f.Rate)
		}
	}
	// Another seed, or another attempt, draws otherwise.
	q := p
	q.Seed = 43
	differ, differAttempt := 0, 0
	for i := range 1000 {
		key := fmt.Sprintf("id-%d", i)
		a, _ := p.Draw(key, 1)
		b, _ := q.Draw(key, 1)
		c, _ := p.Draw(key, 2)
		if a != b {
			differ++
		}
		if a != c {
			differAttempt++
		}
	}
	if differ < 300 || differAttempt < 300 {
		t.Errorf("other seed differs on %d of 1000 calls, other attempt on %d: want about 620", differ, differAttempt)
	}
	// A plan of rate 1 faults every call.
	all, _ := ParsePlan([]string{"drop=1"}, 3)
	for i := range 100 {
		if f, ok := all.Draw(fmt.Sprint(i), 1); !ok || f.Kind != Drop {
			t.Fatalf("drop=1: call %d not dropped", i)
		}
	}
}

func TestAttempts(t *testing.T) {
	a := NewAttempts()
	for i, want := range []int{1, 2, 3} {
		if got := a.Next("x"); got != want {
			t.Errorf("call %d: attempt %d, want %d", i, got, want)
		}
	}
	if got := a.Next("y"); got != 1 {
		t.Errorf("other id: attempt %d, want 1", got)
	}
}

// A requestId is the sender's, as long as a body: Attempts counts long
// ones apart (ids that differ in their last byte) and alike (the same id
// again) without keeping them. It kept each whole: a sender writing
// 1 MiB requestIds made listen --fault hold 1 MiB per id, up to
// maxAttempts of them.
func TestAttemptsLongKeys(t *testing.T) {
	const size, ids = 1 << 20, 32
	long := func(i int) string { return strings.Repeat("r", size-1) + string(rune('A'+i)) }
	a := NewAttempts()
	if got := a.Next(long(0)); got != 1 {
		t.Errorf("first long id: attempt %d, want 1", got)
	}
	if got := a.Next(long(0)); got != 2 {
		t.Errorf("the same long id again: attempt %d, want 2", got)
	}
	if got := a.Next(long(1)); got != 1 {
		t.Errorf("a long id differing in its last byte: attempt %d, want 1", got)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range ids {
		a.Next(long(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > size {
		t.Errorf("after %d requestIds of %d bytes, Attempts holds %d bytes more, want at most %d: it keeps the ids whole", ids, size, grew, size)
	}
	runtime.KeepAlive(a)
}

// A window of N calls goes once the N-th arrives, one call at a time, in
// an order other than their arrival.
func TestReorderWindow(t *testing.T) {
	const n = 5
	r := NewReorderer(Fault{Kind: Reorder, N: n, D: time.Minute}, 9)
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			held, done, err := r.Hold(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			if held.Of != n || held.Pos < 1 || held.Pos > n {
				t.Errorf("call %d: held %+v", i, held)
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			done()
		}()
		if i < n-1 {
			// Each call joins the window before the next comes: the
			// arrival order is 0, 1, 2, ...
			waitHeld(t, r, i+1)
		}
	}
	wg.Wait()
	if len(order) != n {
		t.Fatalf("order %v", order)
	}
	inArrival := true
	for i, c := range order {
		inArrival = inArrival && i == c
	}
	if inArrival {
		t.Errorf("forwarded in arrival order %v", order)
	}
}

// waitHeld waits until r's open window holds k calls.
func waitHeld(t *testing.T, r *Reorderer, k int) {
	t.Helper()
	for {
		r.mu.Lock()
		got := 0
		if r.cur != nil {
			got = len(r.cur.waiters)
		}
		r.mu.Unlock()
		if got >= k {
			return
		}
		runtime.Gosched()
	}
}

// A window that does not fill goes when its hold is over: no call is
// held for ever.
func TestReorderHold(t *testing.T) {
	r := NewReorderer(Fault{Kind: Reorder, N: 10, D: 10 * time.Millisecond}, 1)
	held, done, err := r.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done()
	if held.Pos != 1 || held.Of != 1 {
		t.Errorf("held %+v, want 1 of 1", held)
	}
}

// A held call whose sender gave up lets the others go.
func TestReorderCancelled(t *testing.T) {
	r := NewReorderer(Fault{Kind: Reorder, N: 2, D: time.Minute}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, _, err := r.Hold(ctx)
		errc <- err
	}()
	waitHeld(t, r, 1)
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled hold returned no error")
	}
	_, done, err := r.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done()
}

// Release lets the held calls go at once, and a later call is not held:
// listen's stop does not wait out the hold.
func TestReorderRelease(t *testing.T) {
	r := NewReorderer(Fault{Kind: Reorder, N: 10, D: time.Hour}, 1)
	heldc := make(chan Held, 2)
	for range 2 {
		go func() {
			held, done, err := r.Hold(context.Background())
			if err != nil {
				t.Error(err)
			}
			done()
			heldc <- held
		}()
	}
	waitHeld(t, r, 2)
	r.Release()
	for range 2 {
		if held := <-heldc; held.Of != 2 || !held.Stopped {
			t.Errorf("held %+v, want one of the window's 2, let go by the stop", held)
		}
	}
	held, done, err := r.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done()
	if held.Pos != 1 || held.Of != 1 {
		t.Errorf("a call after Release was held %+v, want 1 of 1 (let through)", held)
	}
}

// A window whose calls are going one at a time when listen stops lets
// the rest go at once: behind a receiver that takes seconds a call, a
// window of 16 took the whole of the stop's 30 s grace, and the calls it
// had not reached were left unforwarded and unanswered (exit 130). The
// first call's forward here never ends before every call had its turn.
func TestReorderReleaseWhileWindowGoes(t *testing.T) {
	const n = 3
	r := NewReorderer(Fault{Kind: Reorder, N: n, D: time.Hour}, 1)
	heldc := make(chan Held, n)
	forwarded := make(chan struct{})
	for range n {
		go func() {
			held, done, err := r.Hold(context.Background())
			if err != nil {
				t.Error(err)
			}
			heldc <- held
			<-forwarded // a forward that lasts until every call went
			done()
		}()
	}
	first := <-heldc // the window filled and its first call goes
	if first.Stopped {
		t.Errorf("the first call of a full window held %+v, want it not let go by the stop", first)
	}
	r.Release()
	seen := map[int]bool{first.Pos: true}
	for range n - 1 {
		held := <-heldc // before the fix: never, the first not done
		seen[held.Pos] = true
	}
	close(forwarded)
	if len(seen) != n {
		t.Errorf("places %v, want each of 1 to %d once", seen, n)
	}
}

func TestShuffleNeverIdentity(t *testing.T) {
	for n := 2; n <= 8; n++ {
		for x := range uint64(200) {
			p := shuffle(n, x)
			seen := make([]bool, n)
			identity := true
			for i, j := range p {
				seen[j] = true
				identity = identity && i == j
			}
			for _, s := range seen {
				if !s {
					t.Fatalf("shuffle(%d, %d) = %v: not a permutation", n, x, p)
				}
			}
			if identity {
				t.Fatalf("shuffle(%d, %d) = %v: arrival order", n, x, p)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"duplicate=0.1", "delay=0.2:300ms", "status=0.05:429", "reorder=0.5:250ms", "burst=1:64", "x", "=:", "drop=10%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			if got != (Fault{}) {
				t.Errorf("Parse(%q) failed and returned %+v", s, got)
			}
			return
		}
		if !(got.Rate > 0 && got.Rate <= 1) {
			t.Errorf("Parse(%q): rate %v", s, got.Rate)
		}
		again, err := Parse(got.String())
		if err != nil || again != got {
			t.Errorf("Parse(%q) = %+v; its String %q parses to %+v, %v", s, got, got.String(), again, err)
		}
	})
}

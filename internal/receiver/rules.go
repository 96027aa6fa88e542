package receiver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// sequence answers the calls of one event with codes in turn: the first call
// gets Codes[0], the next Codes[1], and once they run out the last code
// repeats. That is how a sender's retries are seen: 500,500,200 fails twice
// and then accepts.
type sequence struct {
	Event string
	Codes []int
}

// parseRespond parses a --respond rule: EVENT=code,code,...
func parseRespond(s string) (sequence, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(list) == "" {
		return sequence{}, fmt.Errorf("rule %q: want EVENT=code,code,... (e.g. AUDIT_PURCHASE_ORDER_INVOICE=500,500,200)", s)
	}
	e, known := spec.Lookup(name)
	if !known {
		if hint := suggest.Hint(name, spec.EventNames()); hint != "" {
			return sequence{}, fmt.Errorf("rule %q: unknown event %q%s", s, name, hint)
		}
		return sequence{}, fmt.Errorf("rule %q: unknown event %q (valid: %s)", s, name, strings.Join(spec.EventNames(), ", "))
	}
	seq := sequence{Event: e.Name}
	for i, f := range strings.Split(list, ",") {
		code, err := parseStatus(strings.TrimSpace(f))
		if err != nil {
			return sequence{}, fmt.Errorf("rule %q: code %d: %w", s, i+1, err)
		}
		seq.Codes = append(seq.Codes, code)
	}
	return seq, nil
}

// parseStatus parses a status code listen may answer with: 200 to 599 (a
// 1xx is not a final answer).
func parseStatus(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 200 || n > 599 {
		return 0, fmt.Errorf("%q is not a status code from 200 to 599", s)
	}
	return n, nil
}

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	// Longest first, so that KiB is not read as K plus garbage.
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"b", 1}, {"", 1},
}

// maxSize is the largest --max-body accepted: a body is held in memory.
const maxSize = 1 << 30

// parseSize parses a byte size: 1024, 512KiB, 10MiB, 10MB, 1.5MiB. KB, MB
// and GB are powers of 1000, KiB, MiB and GiB powers of 1024.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, u := range sizeUnits {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		num = strings.TrimSpace(num)
		f, err := strconv.ParseFloat(num, 64)
		// ParseFloat takes "inf", "nan" and hex; a size is plain digits.
		if err != nil || num == "" || strings.ContainsFunc(num, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) {
			break
		}
		v := math.Round(f * u.mult)
		if v < 1 || v > maxSize {
			return 0, fmt.Errorf("size %q: want 1 byte to 1GiB", s)
		}
		return int64(v), nil
	}
	return 0, fmt.Errorf("size %q: want a number with an optional unit B, KB, MB, GB, KiB, MiB or GiB (e.g. 512KiB, 10MB)", s)
}

// responder decides the status of a call that is not forwarded.
type responder struct {
	status   int
	failRate float64

	mu   sync.Mutex
	rng  *rand.Rand
	seqs map[string][]int
	next map[string]int
}

func newResponder(cfg *Config) *responder {
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	r := &responder{
		status:   cfg.Status,
		failRate: cfg.FailRate,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		seqs:     map[string][]int{},
		next:     map[string]int{},
	}
	if r.status == 0 {
		r.status = 200
	}
	for _, s := range cfg.Respond {
		r.seqs[s.Event] = s.Codes // a later rule for the same event wins
	}
	return r
}

// status returns the answer for a call of event ("" when the query has
// none). A --respond sequence for the event wins; otherwise --fail-rate
// draws, otherwise --status.
func (r *responder) decide(event string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if codes, ok := r.seqs[event]; ok && event != "" {
		i := r.next[event]
		r.next[event] = i + 1
		return codes[min(i, len(codes)-1)]
	}
	if r.failRate > 0 && r.rng.Float64() < r.failRate {
		return 500
	}
	return r.status
}

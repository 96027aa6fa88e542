package whsimtest

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
)

// Option changes one setting of Check and CheckURL. The defaults are
// those of whsim check.
type Option func(*settings)

// settings are a run's, from its options. errs are the options a test
// author got wrong, said together when the run starts.
type settings struct {
	checks    []string
	seed      uint64
	fixedIDs  bool
	signer    *sign.Signer
	path      string
	pathSet   bool
	budget    time.Duration
	loadCalls int
	loadConc  int
	timeout   time.Duration
	settle    time.Duration
	probe     ProbeFunc
	header    http.Header
	strict    bool
	rootCAs   *x509.CertPool
	errs      []string
}

func newSettings(opts []Option) (*settings, error) {
	s := &settings{
		path: "/", budget: check.DefaultLatencyBudget, loadCalls: check.DefaultLoadCount,
		loadConc: check.DefaultLoadConcurrency, timeout: check.DefaultTimeout, settle: check.DefaultSettle,
	}
	for _, o := range opts {
		if o == nil {
			s.errs = append(s.errs, "a nil Option")
			continue
		}
		o(s)
	}
	if s.fixedIDs && s.seed == 0 {
		// As whsim check --fixed-ids without --seed: a drawn seed dates
		// its documents by the run's clock, so no later run repeats them.
		s.fail("WithFixedIDs needs WithSeed(n) (not 0, which draws one): the ids are the seed's")
	}
	if ids, err := check.Select(s.checks, nil); err != nil {
		s.errs = append(s.errs, "WithChecks: "+err.Error())
	} else if msg := nothingRunnable(ids, s.signer != nil, s.probe != nil); msg != "" {
		s.errs = append(s.errs, msg)
	}
	if len(s.errs) > 0 {
		return nil, errors.New(strings.Join(s.errs, "; "))
	}
	return s, nil
}

// nothingRunnable says what is missing when every check of ids needs what
// was not given (signature a secret, effects a probe), "" when one can
// run. As whsim check --checks signature or effects alone (exit 2): a run
// asked for nothing it can make, which would pass by skipping.
func nothingRunnable(ids []string, signed, probed bool) string {
	needs := unrunnable(ids, signed, probed)
	switch {
	case len(needs) == 0:
		return ""
	case len(ids) > 1:
		return fmt.Sprintf("WithChecks(%s) needs %s: nothing could be checked", quoteAll(ids), strings.Join(needs, " and "))
	case ids[0] == check.Effects:
		return `WithChecks("effects") needs WithProbe(...): without a probe nothing is asked of the store, so there is nothing to check`
	}
	return `WithChecks("signature") needs WithSecret("whsec_..."): without a secret nothing is signed, so there is nothing to check`
}

// unrunnable is the options every check of ids needs, when each needs
// one that was not given (signature a secret, effects a probe); nil when
// ids is empty or one of them can run.
func unrunnable(ids []string, signed, probed bool) []string {
	var needs []string
	for _, id := range ids {
		switch {
		case id == signatureCheck && !signed:
			needs = append(needs, `WithSecret("whsec_...")`)
		case id == check.Effects && !probed:
			needs = append(needs, "WithProbe(...)")
		default:
			return nil
		}
	}
	return needs
}

// quoteAll is ids quoted as Go strings, comma-separated.
func quoteAll(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	return strings.Join(quoted, ", ")
}

func (s *settings) fail(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// WithChecks runs only the checks named (whsim check --checks), in the
// battery's own order; none named runs every check (signature only with
// WithSecret). The ids are those of
// whsim check --checks: accepts-valid, rejects-malformed,
// unknown-event, event-contradicts-body, duplicates, out-of-order,
// signature, load, effects, latency.
func WithChecks(ids ...string) Option {
	return func(s *settings) { s.checks = append(s.checks, ids...) }
}

// WithSeed makes the run's documents from seed (whsim check --seed): the
// same seed sends the same documents, under fresh requestIds unless
// WithFixedIDs. 0, the default, draws a seed, which the test log says.
func WithSeed(seed uint64) Option {
	return func(s *settings) { s.seed = seed }
}

// WithFixedIDs keeps the requestIds, webhook-ids and document numbers
// the seed gives (whsim check --fixed-ids): with WithSeed, which it
// needs, a run sends the very bytes of the run before. A receiver whose store outlives one
// test sees them as re-deliveries.
func WithFixedIDs() Option {
	return func(s *settings) { s.fixedIDs = true }
}

// WithSecret signs every call with Standard Webhooks headers under
// secret ("whsec_" and base64, whsim check --secret) and enables the
// signature check. Without one, the signature check is no part of the
// run (the spec has no signing) and has no subtest; named in WithChecks,
// its subtest is skipped saying it needs a secret.
func WithSecret(secret string) Option {
	return func(s *settings) {
		if secret == "" {
			s.fail(`WithSecret(""): the secret is empty (an environment variable not set?): want "whsec_" and base64, or no WithSecret for unsigned calls`)
			return
		}
		sg, err := sign.NewSigner(secret)
		if err != nil {
			s.fail("WithSecret: %v", err)
			return
		}
		s.signer = sg
	}
}

// WithPath is the path, and query, the handler is mounted at: every call
// goes to it, with businessType added to its query (a query that has one
// already is refused). The default is "/".
// Check only; CheckURL's URL carries its own.
func WithPath(path string) Option {
	return func(s *settings) {
		if why := pathProblem(path, "whsimtest adds each call's own"); why != "" {
			s.fail("WithPath(%q): %s", path, why)
			return
		}
		s.path, s.pathSet = path, true
	}
}

// pathProblem says what is wrong with path as the path, and query, a
// handler is mounted at (WithPath, Call.Path), "" when nothing is; adds
// says who adds businessType to its query.
func pathProblem(path, adds string) string {
	u, err := url.Parse(path)
	switch {
	case err != nil:
		return err.Error()
	case !strings.HasPrefix(path, "/") || u.Host != "" || u.Scheme != "":
		return "want a path from the root, such as /webhooks/erp"
	case u.Fragment != "" || strings.Contains(path, "#"):
		return "a fragment never reaches a handler"
	}
	q, err := url.ParseQuery(u.RawQuery)
	switch {
	case err != nil:
		return "bad query: " + err.Error()
	case q.Has(spec.QueryParam):
		// The handler would get two values, the path's first.
		return "the query has businessType already; " + adds + " (drop it from the path)"
	}
	return ""
}

// WithLatencyBudget is the p99 latency the latency check allows (whsim
// check --latency-budget); 1s by default.
func WithLatencyBudget(d time.Duration) Option {
	return func(s *settings) {
		if d <= 0 {
			s.fail("WithLatencyBudget(%s): want more than 0", d)
			return
		}
		s.budget = d
	}
}

// WithLoad is how many calls the load check makes and how many are in
// flight at once (whsim check --load-count, --load-concurrency); 300 and
// 16 by default. Each document is created, then audited or voided, by one
// worker: no more are in flight than documents, half the calls.
func WithLoad(calls, concurrency int) Option {
	return func(s *settings) {
		// Both said when both are wrong: one fixed at a time would fail
		// the test twice.
		var want []string
		if calls < 1 || calls > check.MaxLoadCount {
			want = append(want, fmt.Sprintf("1 to %d calls", check.MaxLoadCount))
		}
		if concurrency < 1 {
			want = append(want, "a concurrency of at least 1")
		}
		if len(want) > 0 {
			s.fail("WithLoad(%d, %d): want %s", calls, concurrency, strings.Join(want, " and "))
			return
		}
		s.loadCalls, s.loadConc = calls, concurrency
	}
}

// WithProbe enables the effects check: after the calls, f is asked what
// the receiver's store holds for each document (whsim check --probe, as a
// Go function reading the store directly). It is first asked about a
// document that cannot exist, and again about one of each kind once the
// documents are probed, and must answer Count 0. It is called from
// several goroutines at once: read the store as the handler writes it.
func WithProbe(f ProbeFunc) Option {
	return func(s *settings) {
		if f == nil {
			s.fail("WithProbe(nil): want a function that reads the receiver's store")
			return
		}
		s.probe = f
	}
}

// WithSettle is how long a document may take to be stored after its last
// call (whsim check --settle): the probe is asked again, with backoff,
// until its answer matches. 2s by default; 0 asks once, right for a
// handler that stores before it answers.
func WithSettle(d time.Duration) Option {
	return func(s *settings) {
		if d < 0 {
			s.fail("WithSettle(%s): want 0 or more", d)
			return
		}
		s.settle = d
	}
}

// WithTimeout is the time limit of one call (whsim check --timeout); 10s
// by default. A handler still running then counts as a timeout. It bounds
// each question to WithProbe's function too, as --timeout bounds whsim
// check's probe: one that has not answered then ends the run as its error.
func WithTimeout(d time.Duration) Option {
	return func(s *settings) {
		if d <= 0 {
			s.fail("WithTimeout(%s): want more than 0", d)
			return
		}
		s.timeout = d
	}
}

// WithHeader adds a header to every call (whsim check -H), such as the
// credentials a handler wants before it reads a call. As -H, it takes the
// value without the spaces around it, and refuses a name that is no token,
// a value with a line break or NUL, and Content-Length or
// Transfer-Encoding (each call's body is framed for it).
func WithHeader(name, value string) Option {
	return func(s *settings) {
		// As whsim check -H takes it: a header no client sends would
		// reach a handler in memory, and fail CheckURL before its call.
		k, v, err := endpoint.Header(name, value)
		if err != nil {
			s.fail("WithHeader(%q, %q): %v", name, value, err)
			return
		}
		if s.header == nil {
			s.header = http.Header{}
		}
		s.header.Add(k, v)
	}
}

// WithStrict makes a type error inside data answered 2xx fail instead of
// warn (whsim check --strict).
func WithStrict() Option {
	return func(s *settings) { s.strict = true }
}

// WithRootCAs makes CheckURL trust the certificates of pool in place of
// the system's roots, as tls.Config.RootCAs does: for a receiver served
// over TLS with a test certificate, such as httptest.NewTLSServer's
// (pool.AddCert(srv.Certificate())). CheckURL only: Check calls the
// handler in memory, with no TLS.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(s *settings) {
		if pool == nil {
			s.fail("WithRootCAs: the pool is nil (CheckURL trusts the system's roots without it)")
			return
		}
		s.rootCAs = pool
	}
}

// Package whsimtest runs whsim check's battery inside a receiver's own go
// test: every call goes to the receiver's http.Handler in memory, no
// listener, no port, no process, with the cases, seeds, timeouts and
// verdicts of the CLI, which runs the same code.
//
//	func TestWebhooks(t *testing.T) {
//		whsimtest.Check(t, newRouter(),
//			whsimtest.WithPath("/webhooks/erp"),
//			whsimtest.WithSecret(secret),       // signs every call; enables the signature check
//			whsimtest.WithProbe(store.Probe))   // reads the store; enables the effects check
//	}
//
// Each check is a subtest named by its id and each case a subtest under
// it, named as whsim check names it, so go test -run selects them and CI
// test reporters list them:
//
//	--- FAIL: TestWebhooks/effects/re-delivered/CREATE_RECEIVABLE_DOC/concurrent-x8
//	    receipt SKD-8261FQ-0469: holds 2 records of one document whose copies arrived together: ...
//
// A failing case is t.Error with the reason whsim check gives, the
// receiver's answer in brackets; a warning is t.Log, and one that says
// the case was inconclusive (not judged) is t.Skip, as is a check none of
// whose cases was judged; a run that judged nothing fails the test, as
// whsim check fails it (a skipped test reads "ok"); a check that cannot
// run (effects without WithProbe, signature named in WithChecks beside
// other checks without WithSecret) is t.Skip saying why. Without a secret
// the signature check is no part of the battery and no subtest, as in
// whsim check. Run-wide trouble (the handler panicked, or used its
// ResponseWriter after it returned; the receiver stopped answering)
// fails the test itself; a mistake in the test (a nil
// handler, an unknown check id, WithChecks naming only checks that cannot
// run, as signature without a secret or effects without a probe, a probe
// that errs or holds the document that cannot exist)
// fails it with one message and runs nothing more. So does a call of
// Check or CheckURL where testing forbids the subtests they make: inside
// a testing/synctest bubble (Run, which makes none, runs there) or in a
// t.Cleanup function. Called on a test that has completed (from a
// goroutine it did not wait for), which can no longer be failed, they
// panic saying so, ending the test binary, rather than pass unsaid; so
// do they and NewBody and NewRequest given a nil t.
//
// # The calls, in memory
//
// Each call is a request as a handler behind net/http's server sees it
// (RequestURI, Host, the headers a Go client writes, a body it may read
// once, a context carrying an *http.Server and the local address), with
// a writer that behaves as that server's (it holds 2 KB of answer before
// it writes the head, and is an http.Flusher, http.Hijacker and
// http.CloseNotifier), and runs in a goroutine of its own: the copies of a call the
// duplicates and effects checks send at once reach the handler at once, so
// a handler that checks, then inserts, without a lock shows its race as it
// would over TCP. The answer is taken when the handler returns; a handler
// still running at the time limit (WithTimeout, 10s) is a timeout, and a
// panic is a connection closed without an answer, the panic and its stack
// said once in the test. Check returns only after every handler call it
// made has returned, as httptest.Server.Close waits for its handlers: a
// handler that ignores its request's context delays the end of the test
// (its log says so) rather than outlive it. Under go test -timeout, the
// run and that wait stop a little before the timeout (t.Deadline), and
// the test fails saying so and naming the calls the handler held: the
// timeout's panic would end the test binary with none of it said.
// CheckURL sends the same calls over the network to a receiver already
// listening.
//
// # Selecting checks with go test -run
//
// The battery runs its checks in one order, each run feeding the next:
// latency judges the calls of all the others, effects probes the documents
// of load, rejects-malformed counts a 4xx only from a receiver that
// accepted the event's valid calls. So a check subtest cannot run its check
// alone when testing reaches it. Check first makes every check's subtest;
// testing runs only those -run and -skip select, each of which notes that
// it was selected and pauses (t.Parallel). Check then runs the selected
// checks, and only those, as one battery (as whsim check --checks does),
// and the paused subtests say their cases when the test function returns.
// go test -run 'TestWebhooks/effects' thus sends only the effects check's
// calls; where they select only checks that cannot run (effects without
// WithProbe, or signature without WithSecret, made a subtest for that
// selection alone), the test skips saying so, rather than pass having
// judged nothing. Within a check the cases are sent whole (they depend on each
// other); -run on a case only chooses which case subtests report. The
// price is that the check subtests report after the test function
// returns, and show as paused and continued in go test -v. Under go test
// -failfast, which makes no subtest once a test has failed, a check whose
// failing cases could not become subtests fails itself, naming them.
//
// # Building blocks
//
// For a team's own tests, Call makes a realistic, valid, seeded document
// of any event and shape, with whsim generate's --set and --unset
// (NewBody), and the *http.Request that carries it, signed when given a
// secret (NewRequest), to hand to ServeHTTP directly. Run runs the battery
// outside a test and returns a Report.
//
// The package's import graph holds none of the CLI's packages (cobra,
// viper, colour, terminal): it adds nothing to a module that imports it
// beyond what whsim's own module needs.
package whsimtest

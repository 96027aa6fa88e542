package whsimtest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// recorder stands in for *testing.T under Check: it runs subtests as
// testing does (each in its goroutine; a parallel one paused until its
// parent's function returns; Fatal and Skip end the goroutine) and keeps
// what each said, so that a test can assert on failures without failing.
type recorder struct {
	parent *recorder
	name   string

	mu       sync.Mutex
	failed   bool
	skipped  bool
	errs     []string
	logs     []string
	skipMsg  string
	children []*recorder

	parallel bool
	signal   chan struct{} // paused (Parallel) or done
	release  chan struct{} // the parent's function returned
	kids     []*recorder   // parallel children to release
	running  sync.WaitGroup
	// heard, when set, gets each line the test logs as it logs it.
	heard chan<- string
	// selects, when set, is go test's -run and -skip for the subtests
	// below: Run makes only those whose full name it accepts, and for
	// the others returns true without calling f, as testing does.
	selects func(name string) bool
	// failFast is go test -failfast -parallel 1 for the subtests below:
	// paused subtests resume one at a time, and once a test of the tree
	// has ended failed (tripped), Run makes no subtest and returns true
	// without calling f, as testing does.
	failFast bool
	tripped  *atomic.Bool
	finished chan struct{} // closed when the test and its subtests are done
	// deadline, when set on the top-level test, is go test's -timeout
	// (t.Deadline) for it and its subtests.
	deadline time.Time
}

// record runs f as a top-level test named name and returns its record
// once it and all its subtests are done.
func record(name string, f func(tb)) *recorder {
	r := &recorder{name: name, signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{})}
	go r.exec(f)
	<-r.signal
	return r
}

// recordBefore is record under go test -timeout: the test's deadline
// (t.Deadline) is d.
func recordBefore(name string, d time.Time, f func(tb)) *recorder {
	r := &recorder{name: name, signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}), deadline: d}
	go r.exec(f)
	<-r.signal
	return r
}

// recordHearing is record that also sends each line the top-level test
// logs to heard as it is logged, and closes done when the test is done.
func recordHearing(name string, heard chan<- string, f func(tb)) (r *recorder, done <-chan struct{}) {
	r = &recorder{name: name, signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}), heard: heard}
	go r.exec(f)
	return r, r.signal
}

func (r *recorder) exec(f func(tb)) {
	defer func() {
		for _, k := range r.kids {
			close(k.release)
			if r.failFast {
				<-k.finished
			}
		}
		r.running.Wait()
		r.mu.Lock()
		for _, c := range r.children {
			if c.didFail() {
				r.failed = true
			}
		}
		if r.failed && r.tripped != nil {
			r.tripped.Store(true)
		}
		r.mu.Unlock()
		close(r.finished)
		if r.parallel {
			r.parent.running.Done()
		} else {
			close(r.signal)
		}
	}()
	f(r)
}

func (r *recorder) Helper()                  {}
func (r *recorder) Name() string             { return r.name }
func (r *recorder) Context() context.Context { return context.Background() }
func (r *recorder) failFastOnly() bool       { return r.failFast }

func (r *recorder) Deadline() (time.Time, bool) {
	for r.parent != nil {
		r = r.parent
	}
	return r.deadline, !r.deadline.IsZero()
}

func (r *recorder) Run(name string, f func(tb)) bool {
	c := &recorder{parent: r, name: r.name + "/" + name, signal: make(chan struct{}), release: make(chan struct{}), selects: r.selects,
		failFast: r.failFast, tripped: r.tripped, finished: make(chan struct{})}
	if c.selects != nil && !c.selects(c.name) {
		return true
	}
	if c.failFast && c.tripped.Load() {
		return true
	}
	r.mu.Lock()
	r.children = append(r.children, c)
	r.mu.Unlock()
	go c.exec(f)
	<-c.signal
	return !c.didFail()
}

func (r *recorder) Parallel() {
	r.parallel = true
	r.parent.running.Add(1)
	r.parent.kids = append(r.parent.kids, r) // the parent waits in Run
	close(r.signal)
	<-r.release
}

func (r *recorder) didFail() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.errs = append(r.errs, fmt.Sprint(args...))
}

func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }

func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	r.logs = append(r.logs, fmt.Sprint(args...))
	r.mu.Unlock()
	if r.heard != nil {
		r.heard <- fmt.Sprint(args...)
	}
}

func (r *recorder) Logf(format string, args ...any) { r.Log(fmt.Sprintf(format, args...)) }

func (r *recorder) Skip(args ...any) {
	r.mu.Lock()
	r.skipped, r.skipMsg = true, fmt.Sprint(args...)
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Error(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }

// walk calls f on r and every subtest under it, depth first.
func (r *recorder) walk(f func(*recorder)) {
	f(r)
	for _, c := range r.children {
		c.walk(f)
	}
}

// failures are the names, below the top, of the tests that failed on
// their own (not only through a subtest), sorted.
func (r *recorder) failures() []string {
	var out []string
	r.walk(func(c *recorder) {
		if len(c.errs) > 0 {
			out = append(out, strings.TrimPrefix(c.name, r.name+"/"))
		}
	})
	slices.Sort(out)
	return out
}

// find is the subtest named path below r, nil when none ran.
func (r *recorder) find(path string) *recorder {
	var got *recorder
	r.walk(func(c *recorder) {
		if c.name == r.name+"/"+path {
			got = c
		}
	})
	return got
}

// leaves are the names of the case subtests (those with no subtest of
// their own) below r, sorted.
func (r *recorder) leaves() []string {
	var out []string
	r.walk(func(c *recorder) {
		if c != r && len(c.children) == 0 {
			out = append(out, strings.TrimPrefix(c.name, r.name+"/"))
		}
	})
	slices.Sort(out)
	return out
}

// said is everything r and its subtests said, for a failure message.
func (r *recorder) said() string {
	var b strings.Builder
	r.walk(func(c *recorder) {
		for _, e := range c.errs {
			fmt.Fprintf(&b, "%s: ERROR %s\n", c.name, e)
		}
		if c.skipped {
			fmt.Fprintf(&b, "%s: SKIP %s\n", c.name, c.skipMsg)
		}
	})
	return b.String()
}

package receiver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/fault"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/termsafe"
)

// Options are a receiver's answer settings as a person gives them (listen's
// flags), still to be checked: Config checks them.
type Options struct {
	Path      string
	Status    int
	Delay     time.Duration
	FailRate  float64
	Seed      uint64
	Respond   []string // EVENT=code,code,... each
	ForwardTo string
	MaxBody   string // a size: 10MiB, 512KiB
	// Faults are --fault specs (KIND=RATE[:ARG]), for forwarded calls only.
	Faults []string
	// TLS is how an https ForwardTo is trusted (listen's --insecure and
	// --cacert); nil for the system's roots.
	TLS *tls.Config
}

// forwardIdleConns are the connections to the receiver kept between
// calls: one a sender, up to a load test's concurrency. 64 were kept
// before, and a sender at 200 made listen dial anew for a call in four
// (5,360 connections for 20,000 calls), each closed one a socket left in
// TIME_WAIT. An idle connection costs a file descriptor (Go raises the
// soft limit to the hard one) and is closed after 90 s unused.
const forwardIdleConns = 1024

// optionError is a setting of Options that is wrong, named as listen's
// flag names it.
type optionError struct {
	Option string // "status", "fail-rate", ...
	Value  string // the value as the message quotes it, "" when Err does
	Err    error
}

func (e *optionError) Error() string {
	if e.Value == "" {
		return e.Option + ": " + e.Err.Error()
	}
	return e.Option + " " + e.Value + ": " + e.Err.Error()
}

func (e *optionError) Unwrap() error { return e.Err }

// Config checks o and makes the receiver's Config of it; a problem is an
// *OptionError.
func (o Options) Config() (Config, error) {
	cfg := Config{Path: o.Path, Delay: o.Delay, FailRate: o.FailRate, Seed: o.Seed}
	st, err := parseStatus(strconv.Itoa(o.Status))
	if err != nil {
		return cfg, &optionError{Option: "status", Err: err}
	}
	cfg.Status = st
	// The longest hold is --fault delay's: a call held for hours holds a
	// sender's connection and listen's stop, and no sender waits that long.
	if o.Delay < 0 || o.Delay > fault.MaxDelay {
		return cfg, &optionError{Option: "delay", Value: o.Delay.String(),
			Err: fmt.Errorf("want a duration from 0 to %s, as --fault delay's (e.g. 500ms, 2s)", fault.MaxDelay)}
	}
	if !(o.FailRate >= 0 && o.FailRate <= 1) {
		return cfg, &optionError{Option: "fail-rate", Value: fmt.Sprint(o.FailRate),
			Err: errors.New("want a share from 0 to 1 (0.1 fails one call in ten)")}
	}
	for _, r := range o.Respond {
		seq, err := parseRespond(r)
		if err != nil {
			return cfg, &optionError{Option: "respond", Err: err}
		}
		cfg.Respond = append(cfg.Respond, seq)
	}
	if o.Path != "" && !strings.HasPrefix(o.Path, "/") {
		return cfg, &optionError{Option: "path", Value: strconv.Quote(o.Path), Err: errors.New("want a path starting with /")}
	}
	if cfg.MaxBody, err = parseSize(o.MaxBody); err != nil {
		return cfg, &optionError{Option: "max-body", Err: err}
	}
	if o.ForwardTo != "" {
		// Each call goes on with its own query after the URL's, so a
		// businessType there went out twice, the URL's first, which most
		// receivers read for every event (as send's --url refuses it).
		u, err := endpoint.ParseHookTarget(o.ForwardTo)
		if te, ok := errors.AsType[*endpoint.TargetError](err); ok {
			// Credentials masked, as send's --url error masks them.
			return cfg, &optionError{Option: "forward-to", Value: strconv.Quote(termsafe.URLString(te.URL)), Err: errors.New(te.Why)}
		}
		cfg.ForwardTo = u
		cfg.Client = newClient(forwardIdleConns, 30*time.Second, o.TLS)
	}
	if len(o.Faults) > 0 {
		if cfg.ForwardTo == nil {
			return cfg, &optionError{Option: "fault", Err: errors.New("needs --forward-to: faults are put on the way to your receiver")}
		}
		seed := o.Seed
		if seed == 0 {
			seed = reqid.RandomSeed()
		}
		plan, err := fault.ParsePlan(o.Faults, seed)
		if fe, ok := errors.AsType[*fault.Error](err); ok {
			return cfg, &optionError{Option: "fault", Value: strconv.Quote(fe.Spec), Err: errors.New(fe.Why)}
		}
		cfg.Faults = NewFaults(plan)
	}
	return cfg, nil
}

// LoopbackOnly reports whether addr takes connections from this machine
// only.
func LoopbackOnly(addr net.Addr) bool {
	a, ok := addr.(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

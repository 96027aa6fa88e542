// Package payloadflags is the flag set that says which payloads to build
// (--event, --shape, --seed, --set, --unset), shared by generate, send and
// export, and the plan it resolves to.
package payloadflags

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// Payloads are the flags that say which payloads to build; generate, send
// and export share them.
type Payloads payload.Request

// Register declares them on cmd.
func (p *Payloads) Register(cmd *cobra.Command) {
	cmdutil.EventsFlag(cmd, &p.Events, []string{spec.AllEvents}, "")
	cmdutil.ShapeFlag(cmd, &p.Shape)
	cmdutil.SeedFlag(cmd, &p.Seed, "")
	cmdutil.SetFlags(cmd, &p.Sets, &p.Unsets)
}

// Plan is what Payloads resolve to; an override that does not fit a payload
// is a usage error.
type Plan struct{ *payload.Plan }

// Plan checks the flags (usage errors) and returns the payload source,
// generating around payload.Around.
func (p *Payloads) Plan(a *cmdutil.App) (*Plan, error) {
	pl, err := payload.Request(*p).Plan(a.Now())
	if err != nil {
		return nil, cmdutil.UsageErr(err)
	}
	for _, w := range pl.Warnings {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("warning:"), termsafe.Text(w))
	}
	return &Plan{pl}, nil
}

// Payload builds the next payload of e.
func (pl *Plan) Payload(e spec.Event) (*payload.Obj, error) {
	doc, err := pl.Next(e)
	return doc, Err(err)
}

// Body is Payload's payload encoded, as a delivery sends it.
func (pl *Plan) Body(e spec.Event) ([]byte, error) {
	b, err := pl.NextBody(e)
	return b, Err(err)
}

// Err makes an override that does not fit a payload a usage error.
func Err(err error) error {
	if errors.As(err, new(*payload.PathError)) {
		return cmdutil.UsageErr(err)
	}
	return err
}

// IDNonce is the nonce of a run's requestIds (reqid.Mix): 0 with
// --fixed-ids, which repeats the ids generate --seed prints; else a fresh
// one, so that --seed fixes the content and each run still has ids of its
// own (a deduplicating receiver would take repeated ids for re-deliveries).
func IDNonce(fixed bool, seed uint64) (uint64, error) {
	switch {
	case fixed && seed == 0:
		return 0, cmdutil.Usagef("--fixed-ids needs --seed: the ids are the seed's")
	case fixed:
		return 0, nil
	}
	return reqid.Nonce(), nil
}

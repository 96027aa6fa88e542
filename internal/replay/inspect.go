package replay

import (
	"context"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/tlsconf"
)

// replayTimeout bounds a replay from the page, as send's --timeout default.
const replayTimeout = 10 * time.Second

// One is the inspector's replay (inspect.Options.Replay): it sends one
// captured call to u as whsim replay does (the same request, body byte for
// byte, one attempt) and says what came back, credentials in the answer
// masked.
func One(ctx context.Context, rec *capture.Record, u string) inspect.Replayed {
	return oneWith(ctx, rec, u, attempt.ClientOptions{Timeout: replayTimeout})
}

// OneWith is One trusting https targets as tls says (listen's --insecure
// and --cacert): the replay box's first target is the receiver listen
// passes calls on to.
func OneWith(tls tlsconf.Options) func(ctx context.Context, rec *capture.Record, u string) inspect.Replayed {
	co := attempt.ClientOptions{Timeout: replayTimeout, Insecure: tls.Insecure, CAFile: tls.CAFile, RootCAs: tls.RootCAs}
	return func(ctx context.Context, rec *capture.Record, u string) inspect.Replayed {
		return oneWith(ctx, rec, u, co)
	}
}

func oneWith(ctx context.Context, rec *capture.Record, u string, co attempt.ClientOptions) inspect.Replayed {
	out := inspect.Replayed{URL: u}
	target, err := endpoint.ParseTarget(u)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	req, _, err := request(rec, nil)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	client, err := attempt.NewClient(co)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	d := &attempt.Deliverer{Client: client, Target: target, KeepBody: true, Expect: func(int) bool { return true }}
	res := d.Deliver(ctx, req)
	client.CloseIdleConnections()
	last := res.Last()
	out.URL, out.Status, out.LatencyMS = res.URL, last.Status, attempt.MS(last.Latency)
	if last.Status == 0 {
		out.Error = attempt.ShortError(last)
		return out
	}
	out.Headers = termsafe.MaskHeaders(res.RespHeader)
	out.Body, out.BodyEncoding = capture.EncodeBody(res.RespBody)
	return out
}

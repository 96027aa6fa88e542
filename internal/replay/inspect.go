package replay

import (
	"context"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/termsafe"
)

// replayTimeout bounds a replay from the page, as send's --timeout default.
const replayTimeout = 10 * time.Second

// One is the inspector's replay (inspect.Options.Replay): it sends one
// captured call to u as whsim replay does (the same request, body byte for
// byte, one attempt) and says what came back, credentials in the answer
// masked.
func One(ctx context.Context, rec *capture.Record, u string) inspect.Replayed {
	out := inspect.Replayed{URL: u}
	target, err := endpoint.ParseTarget(u)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	req, err := request(rec, nil)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	client, err := attempt.NewClient(attempt.ClientOptions{Timeout: replayTimeout})
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

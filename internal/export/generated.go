package export

import (
	"net/http"
	"net/url"

	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
)

// Generated lists the deliveries send would make to target of count
// payloads of each of pl's events, from the same templates: each its own
// requestId unless an override sets it. seed is the run's (0: random),
// nonce its requestIds' (reqid.Mix: 0 for the seed's own).
func Generated(target *url.URL, header http.Header, pl *payload.Plan, count int, seed, nonce uint64) ([]Call, error) {
	// The same templates as send's (load.Lanes): each call a document of
	// its own, the pool's bodies with distinct document numbers.
	userIDs := payload.OwnsRequestID(pl.Overrides)
	lanes, err := load.Lanes{
		Header: header, Rounds: count,
		Set: payload.OverridePaths(pl.Overrides), UserIDs: userIDs,
		Events: pl.Events, Next: pl.NextBody,
	}.Build()
	if err != nil {
		return nil, err
	}
	return calls(load.NewFeed(lanes, count, 0, false, seed).WithNonce(nonce).Next, target, userIDs), nil
}

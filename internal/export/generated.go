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
	// Each call is a document of its own, as send makes them: the pool's
	// bodies get distinct document numbers (load.DocPaths).
	var set [][]string
	for _, ov := range pl.Overrides {
		set = append(set, ov.Path)
	}
	lanes, err := load.EventLanes(pl.Events, load.Pool(count), header, !payload.OwnsRequestID(pl.Overrides), load.NewDocPaths(set), pl.NextBody)
	if err != nil {
		return nil, err
	}
	return calls(load.NewFeed(lanes, count, 0, false, seed).WithNonce(nonce).Next, target), nil
}

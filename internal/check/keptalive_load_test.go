package check

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The load alone against a receiver that answers a connection's first
// call only, on the transport of this run of the tests (envClient: the
// fast path by default, WHSIM_TRANSPORT's otherwise). On the fast path no
// call said it went out on a kept-alive connection: half the load's calls
// waited the whole time limit, and the load said the receiver buckles
// under load. It says what it saw, and its later calls go on new
// connections, whatever the transport.
func TestLoadOnTheRunsTransportNamesKeepAliveAnsweringTheFirstCallOnly(t *testing.T) {
	t.Parallel()
	url, held := answersFirstCallOnly(t)

	cfg := testConfig(t, url)
	cfg.Client, cfg.Signer = testClient(t, 5*time.Second), nil
	t.Cleanup(cfg.Client.CloseIdleConnections)
	cfg.Checks = []string{Load}
	cfg.LoadCount, cfg.LoadConcurrency = 64, 4
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := ofCheck(results, Load)
	if len(load) != 1 {
		t.Fatalf("load results %+v", load)
	}
	why := load[0].Reason
	if strings.Contains(why, "buckles under load") || !strings.Contains(why, "from a receiver that answered none on a kept-alive connection") {
		t.Errorf("load: %s, %q; want keep-alive named, not load", load[0].Verdict, why)
	}
	if k := sum.KeptAliveBroken; k == nil || k.TimedOut == 0 || k.Answered == 0 {
		t.Errorf("summary's keep-alive finding %+v, want calls answered on new connections and some held on kept-alive ones", k)
	}
	if n := held.Load(); n == 0 || n > 2*int32(cfg.LoadConcurrency) {
		t.Errorf("%d calls went out on a kept-alive connection, want some and no more than those in flight as the first got no answer, %d at most", n, 2*cfg.LoadConcurrency)
	}
}

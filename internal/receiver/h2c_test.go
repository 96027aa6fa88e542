package receiver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A sender (or a proxy in front of it: Envoy and the like often speak
// HTTP/2 without TLS upstream) that talks HTTP/2 over plain TCP from the
// first byte is answered, and its call recorded, as any other: not seen as
// a call of method PRI with no body, answered in HTTP/1.1 and lost.
func TestPriorKnowledgeHTTP2IsACall(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{}
	obs := &observed{}
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()

	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Protocols: &h2c}}
	body := `{"requestId":"r-1","businessType":5007,"data":{}}`
	resp, err := client.Post(s.URL()+"/hook?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("an HTTP/2 call: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Errorf("answered %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
	}
	if len(mem.recs) != 1 || mem.recs[0].Method != "POST" || mem.recs[0].Path != "/hook" || mem.recs[0].Body != body {
		t.Fatalf("recorded %+v, want the POST and its body", mem.recs)
	}
	if len(obs.calls) != 1 || len(obs.calls[0].Findings) != 0 {
		t.Errorf("calls %+v, want one without findings", obs.calls)
	}
}

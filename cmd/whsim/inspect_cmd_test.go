package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// TestInspectServesACapture runs `whsim inspect` on a capture file: the API
// lists its calls and exports the file back byte for byte; Ctrl-C ends it
// with status 0.
func TestInspectServesACapture(t *testing.T) {
	dir := t.TempDir()
	var file []byte
	for i, body := range []string{`{"requestId":"r-1","businessType":5007,"data":{}}`, "{\"requestId\":\"r-2\",\"x\":\"\xff\"}"} {
		rec := &capture.Record{Time: time.Date(2026, 11, 23, 1, 0, i, 0, time.UTC), Remote: "127.0.0.1:9", Method: "POST", Path: "/hook",
			Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}},
			Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8}}
		rec.SetBody([]byte(body))
		file, _ = capture.Append(file, rec)
	}
	path := filepath.Join(dir, "calls.ndjson")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(dir, "ui.txt")
	var stderr syncBuffer
	cmd := exec.Command("whsim", "inspect", path, "--ui", "127.0.0.1:0", "--ready-file", ready)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var ui string
	for deadline := time.Now().Add(20 * time.Second); ui == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(ready)
		ui = strings.TrimSpace(string(b))
	}
	if ui == "" {
		t.Fatalf("inspect did not start: %s", stderr.String())
	}
	printed := ui
	ui, token := splitToken(t, ui)
	resp := apiGet(t, ui+"api/calls", token)
	var calls []struct {
		ID        int    `json:"id"`
		RequestID string `json:"requestId"`
		Verdict   string `json:"verdict"`
	}
	json.NewDecoder(resp.Body).Decode(&calls)
	resp.Body.Close()
	if len(calls) != 2 || calls[0].ID != 2 || calls[1].RequestID != "r-1" || calls[0].Verdict != "invalid" {
		t.Errorf("calls = %+v", calls)
	}
	resp = apiGet(t, ui+"api/export?format=ndjson", token)
	exported, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(exported, file) {
		t.Errorf("export differs from the capture:\n%s\nwant\n%s", exported, file)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("inspect after Ctrl-C: %v (%s)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "inspector on "+printed+" (2 calls from ") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

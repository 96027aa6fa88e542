package export

import (
	"bytes"
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func validK6Config() K6Config {
	return K6Config{Out: "k6", VUs: 10, P95: time.Second, Parallelism: 2, Name: "whsim"}
}

// testCert is a certificate's DER bytes, made now.
func testCert(t *testing.T) []byte {
	t.Helper()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	return srv.Certificate().Raw
}

func TestK6ConfigCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*K6Config)
		want string // "" for valid
	}{
		{name: "defaults", edit: func(*K6Config) {}},
		{name: "a rate for a duration, signed", edit: func(c *K6Config) {
			c.Rate, c.Duration, c.Secret = 200, time.Minute, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		}},
		{name: "no directory", edit: func(c *K6Config) { c.Out = "" }, want: "--out: give the directory to write the k6 files into"},
		{name: "negative rate", edit: func(c *K6Config) { c.Rate = -1 }, want: "--rate -1: want 0 or more"},
		{name: "rate without duration", edit: func(c *K6Config) { c.Rate = 2 }, want: "--rate 2 needs --duration"},
		{name: "a rate for less than k6's 1s", edit: func(c *K6Config) { c.Rate, c.Duration = 5, 500*time.Millisecond }, want: "--duration 500ms: want at least 1s (k6's least for a rate)"},
		{name: "a rate for k6's 1s", edit: func(c *K6Config) { c.Rate, c.Duration = 5, time.Second }},
		{name: "duration without rate", edit: func(c *K6Config) { c.Duration = time.Second }, want: "--duration needs --rate"},
		{name: "no VUs", edit: func(c *K6Config) { c.VUs = 0 }, want: "--vus 0: want at least 1"},
		{name: "negative max VUs", edit: func(c *K6Config) { c.MaxVUs = -1 }, want: "--max-vus -1: want 0 or more"},
		{name: "zero p95", edit: func(c *K6Config) { c.P95 = 0 }, want: "--p95 0s: want more than 0"},
		{name: "no pods", edit: func(c *K6Config) { c.Parallelism = 0 }, want: "--parallelism 0: want at least 1"},
		{name: "bad secret", edit: func(c *K6Config) { c.Secret = "bad" }, want: "--secret: secret must start with whsec_"},
		{name: "first problem wins", edit: func(c *K6Config) { c.Out, c.VUs = "", 0 }, want: "--out: give the directory to write the k6 files into"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := validK6Config()
			tt.edit(&c)
			err := c.Check()
			if got := ""; err != nil {
				got = err.Error()
				if got != tt.want {
					t.Errorf("Check() = %q, want %q", got, tt.want)
				}
			} else if tt.want != "" {
				t.Errorf("Check() = nil, want %q", tt.want)
			}
		})
	}
}

func TestK6ConfigOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		edit       func(*K6Config)
		wantVUs    int
		wantMaxVUs int
		wantSign   bool
		reach      Reach
		wantCA     string
	}{
		{name: "each call once: no more VUs than the 7 calls (k6 refuses more)", edit: func(*K6Config) {}, wantVUs: 7, wantMaxVUs: 10},
		{name: "twice the rate", edit: func(c *K6Config) { c.Rate, c.Duration = 50, time.Second }, wantVUs: 10, wantMaxVUs: 100},
		{name: "max VUs given", edit: func(c *K6Config) { c.Rate, c.Duration, c.MaxVUs = 50, time.Second, 300 }, wantVUs: 10, wantMaxVUs: 300},
		{name: "never below the VUs", edit: func(c *K6Config) { c.Rate, c.Duration, c.MaxVUs = 2, time.Second, 3 }, wantVUs: 10, wantMaxVUs: 10},
		{name: "signed", edit: func(c *K6Config) { c.Secret = "whsec_x" }, wantVUs: 7, wantMaxVUs: 10, wantSign: true},
		{name: "max VUs given below twice the rate", edit: func(c *K6Config) { c.Rate, c.Duration, c.MaxVUs = 50, time.Second, 20 }, wantVUs: 10, wantMaxVUs: 20},
		{name: "fewer VUs than calls", edit: func(c *K6Config) { c.VUs = 3 }, wantVUs: 3, wantMaxVUs: 3},
		{name: "at a rate, the VUs asked for", edit: func(c *K6Config) { c.Rate, c.Duration = 50, time.Second }, wantVUs: 10, wantMaxVUs: 100},
		{name: "a private CA: its copy beside the script", reach: Reach{Timeout: time.Second, CAFile: "/etc/dev/ca.pem"}, wantVUs: 7, wantMaxVUs: 10, wantCA: caFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := validK6Config()
			if tt.edit != nil {
				tt.edit(&c)
			}
			reach := tt.reach
			if reach == (Reach{}) {
				reach = Reach{Timeout: 10 * time.Second}
			}
			ko, tr := c.Options(7, reach)
			want := k6Options{DataFile: dataFile, Calls: 7, Rate: float64(c.Rate), Duration: c.Duration,
				VUs: tt.wantVUs, MaxVUs: tt.wantMaxVUs, P95: c.P95, Sign: tt.wantSign, Reach: reach}
			if ko != want {
				t.Errorf("K6Options = %+v, want %+v", ko, want)
			}
			wantTR := testRunOptions{Name: "whsim", Script: scriptFile, DataFile: dataFile, Parallelism: 2, Sign: tt.wantSign, CAFile: tt.wantCA}
			if tr != wantTR {
				t.Errorf("TestRunOptions = %+v, want %+v", tr, wantTR)
			}
		})
	}
}

// WriteK6 writes what writeK6Script, k6Data and k6TestRun make, each in its file.
func TestWriteK6(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ko, tr := validK6Config().Options(len(testCalls()), Reach{Timeout: 10 * time.Second})
	if _, err := WriteK6(context.Background(), dir, testCalls(), ko, tr); err != nil {
		t.Fatal(err)
	}
	var script, data, testRun bytes.Buffer
	if err := writeK6Script(&script, ko); err != nil {
		t.Fatal(err)
	}
	if err := k6Data(context.Background(), &data, testCalls()); err != nil {
		t.Fatal(err)
	}
	if err := k6TestRun(&testRun, tr); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{scriptFile: script.Bytes(), dataFile: data.Bytes(), TestRunFile: testRun.Bytes()} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what its writer makes", name)
		}
	}
	// The data holds every call's headers and URL as they go, -H
	// Authorization and a ?token= included: created 0600, as a capture
	// is, not readable by every user of the machine. The script and the
	// manifest hold none and stay 0644.
	for name, want := range map[string]os.FileMode{dataFile: 0o600, scriptFile: 0o644, TestRunFile: 0o644} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, fi.Mode().Perm(), err, want)
		}
	}

	// With a CA file its copy is written beside the script, byte for byte.
	ca := filepath.Join(t.TempDir(), "dev.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: testCert(t)})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	withCA := t.TempDir()
	ko2, tr2 := validK6Config().Options(len(testCalls()), Reach{Timeout: time.Second, CAFile: ca})
	if _, err := WriteK6(context.Background(), withCA, testCalls(), ko2, tr2); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(withCA, caFile)); err != nil || !bytes.Equal(got, pemBytes) {
		t.Errorf("%s: %q, %v; want the CA file's bytes", caFile, got, err)
	}
	// A CA file gone since: nothing written, the error names the flag.
	none := t.TempDir()
	ko3, tr3 := validK6Config().Options(len(testCalls()), Reach{Timeout: time.Second, CAFile: filepath.Join(none, "gone.pem")})
	if _, err := WriteK6(context.Background(), none, testCalls(), ko3, tr3); err == nil || !strings.HasPrefix(err.Error(), "--cacert ") {
		t.Errorf("WriteK6 with a missing CA file: %v", err)
	}
	if left, _ := os.ReadDir(none); len(left) != 0 {
		t.Errorf("files written without their CA: %v", left)
	}

	// A directory that is not there: the error names the file.
	missing := filepath.Join(dir, "missing")
	_, err := WriteK6(context.Background(), missing, testCalls(), ko, tr)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(filepath.Join(missing, scriptFile))) {
		t.Errorf("WriteK6 into a missing directory: %v", err)
	}
}

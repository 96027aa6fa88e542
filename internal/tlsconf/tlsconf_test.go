package tlsconf

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConfigTrustsTheCAFile: a client made of Config with --cacert
// reaches a server whose certificate the file's CA signed, and one
// without it does not; --insecure reaches it unverified.
func TestConfigTrustsTheCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    Options
		ok   bool
	}{
		{"the system's roots", Options{}, false},
		{"--cacert", Options{CAFile: ca}, true},
		{"--insecure", Options{Insecure: true}, true},
		{"--cacert over an empty pool", Options{CAFile: ca, RootCAs: x509.NewCertPool()}, true},
	} {
		conf, err := Config(tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: conf}}
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: GET %s: %v, want reached %v", tc.name, srv.URL, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			t.Errorf("%s: %v, want the certificate's error", tc.name, err)
		}
	}
}

// TestConfigRefusesWhatIsNoCAFile: a file without a certificate, a
// missing one, and a directory are errors (a FIFO too, whose open would
// wait for a writer: flag_needs.txtar), and the pool given is never
// changed.
func TestConfigRefusesWhatIsNoCAFile(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	for _, tc := range []struct {
		file string
		want string
	}{
		{notPEM, ErrNoCerts.Error()},
		{filepath.Join(dir, "missing.pem"), "no such file or directory"},
		{dir, "not a regular file (a directory): want a file of PEM certificates"},
	} {
		_, err := Config(Options{CAFile: tc.file, RootCAs: pool})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
		if tc.file == notPEM && !errors.Is(err, ErrNoCerts) {
			t.Errorf("%s: %v is not ErrNoCerts", tc.file, err)
		}
		// CAFilePEM refuses the same files with the same words.
		if b, err := CAFilePEM(tc.file); err == nil || !strings.Contains(err.Error(), tc.want) || b != nil {
			t.Errorf("CAFilePEM(%s): %q, %v, want %q", tc.file, b, err, tc.want)
		}
	}
	if !pool.Equal(x509.NewCertPool()) {
		t.Error("the caller's pool was changed")
	}
}

// TestCAFilePEMKeepsTheBytes: a file with a certificate comes back byte
// for byte (an export copies it for its engine), comments and all.
func TestCAFilePEMKeepsTheBytes(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	want := append([]byte("# the dev CA\n"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})...)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, want, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := CAFilePEM(ca)
	if err != nil || string(got) != string(want) {
		t.Errorf("CAFilePEM = %q, %v; want the file's bytes", got, err)
	}
}

func TestCurlFlags(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{}, nil},
		{Options{Insecure: true}, []string{"-k"}},
		{Options{CAFile: "ca.pem"}, []string{"--cacert", "ca.pem"}},
		{Options{Insecure: true, CAFile: "my ca.pem"}, []string{"-k", "--cacert", "my ca.pem"}},
	} {
		if got := CurlFlags(tc.o); !slices.Equal(got, tc.want) {
			t.Errorf("CurlFlags(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The labels the test builds the image with.
const (
	testVersion  = "9.8.7-test"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
	testCreated  = "2026-01-02T03:04:05Z"
)

// layout reads an OCI image layout, checking each blob against its digest.
type layout struct {
	t   *testing.T
	dir string
}

func (l layout) blob(d descriptor) []byte {
	l.t.Helper()
	hexSum, ok := strings.CutPrefix(d.Digest, "sha256:")
	if !ok {
		l.t.Fatalf("digest %q: want sha256:", d.Digest)
	}
	b, err := os.ReadFile(filepath.Join(l.dir, "blobs", "sha256", hexSum))
	if err != nil {
		l.t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != hexSum || int64(len(b)) != d.Size {
		l.t.Fatalf("blob %s: sha256 %x, size %d; the descriptor says size %d", d.Digest, sum, len(b), d.Size)
	}
	return b
}

func (l layout) json(d descriptor, wantType string, v any) {
	l.t.Helper()
	if d.MediaType != wantType {
		l.t.Fatalf("%s: media type %q, want %q", d.Digest, d.MediaType, wantType)
	}
	if err := json.Unmarshal(l.blob(d), v); err != nil {
		l.t.Fatalf("%s: %v", d.Digest, err)
	}
}

// TestImage builds the image with scripts/oci-image.sh as a release would,
// reads it as a registry or runtime would (index -> both platforms'
// manifests -> config and layer), unpacks the amd64 root filesystem and
// runs whsim from it: version, a listen with the health check, a send to
// it, and a send over TLS trusting only the image's certificates.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds whsim for two platforms")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is missing: scripts/oci-image.sh needs it")
	}
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer tlsSrv.Close()
	// The image's bundle: the build machine's (when it has one) and the
	// test server's certificate, which no system trusts.
	var ca bytes.Buffer
	if sys, err := os.ReadFile(caPath); err == nil {
		ca.Write(sys)
	}
	if err := pem.Encode(&ca, &pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	caFile := filepath.Join(tmp, "ca.crt")
	if err := os.WriteFile(caFile, ca.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(tmp, "oci")
	cmd := exec.Command("bash", "../oci-image.sh", out)
	// VERSION, REVISION and CREATED set: the script asks git for none.
	cmd.Env = append(os.Environ(), "VERSION=v"+testVersion, "REVISION="+testRevision, "CREATED="+testCreated, "CA_FILE="+caFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oci-image.sh: %v\n%s", err, b)
	}

	l := layout{t, out}
	if b, err := os.ReadFile(filepath.Join(out, "oci-layout")); err != nil || !strings.Contains(string(b), `"imageLayoutVersion":"1.0.0"`) {
		t.Fatalf("oci-layout: %q, %v", b, err)
	}
	var top index
	b, err := os.ReadFile(filepath.Join(out, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != testVersion {
		t.Fatalf("index.json: want one index named %s, got %+v", testVersion, top.Manifests)
	}
	var multi index
	l.json(top.Manifests[0], mediaIndex, &multi)
	var plats []string
	layers := map[string][]byte{}
	for _, d := range multi.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		arch := d.Platform.Architecture
		plats = append(plats, d.Platform.OS+"/"+arch+"/"+d.Platform.Variant)
		var m manifest
		l.json(d, mediaManifest, &m)
		var c imageConfig
		l.json(m.Config, mediaConfig, &c)
		if c.OS != "linux" || c.Architecture != arch {
			t.Errorf("%s: config says %s/%s", arch, c.OS, c.Architecture)
		}
		if c.Config.User != "65532:65532" {
			t.Errorf("%s: User %q, want 65532:65532 (not root)", arch, c.Config.User)
		}
		if !slices.Equal(c.Config.Entrypoint, []string{"whsim"}) {
			t.Errorf("%s: Entrypoint %q", arch, c.Config.Entrypoint)
		}
		for k, want := range map[string]string{
			"org.opencontainers.image.source":   "https://github.com/whsim/whsim",
			"org.opencontainers.image.version":  testVersion,
			"org.opencontainers.image.revision": testRevision,
			"org.opencontainers.image.licenses": "MIT",
		} {
			if got := c.Config.Labels[k]; got != want {
				t.Errorf("%s: label %s = %q, want %q", arch, k, got, want)
			}
		}
		if len(m.Layers) != 1 || len(c.RootFS.DiffIDs) != 1 {
			t.Fatalf("%s: %d layers, %d diff ids; want 1", arch, len(m.Layers), len(c.RootFS.DiffIDs))
		}
		layer := l.blob(m.Layers[0])
		zr, err := gzip.NewReader(bytes.NewReader(layer))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(raw); "sha256:"+hex.EncodeToString(sum[:]) != c.RootFS.DiffIDs[0] {
			t.Errorf("%s: the layer's diff id is not the sha256 of its tar", arch)
		}
		layers[arch] = raw
		if arch == "amd64" {
			t.Run("amd64", func(t *testing.T) { runImage(t, raw, c, tlsSrv.URL) })
		}
	}
	if want := []string{"linux/amd64/", "linux/arm64/v8"}; !slices.Equal(plats, want) {
		t.Errorf("platforms %q, want %q", plats, want)
	}
	if raw := layers["arm64"]; raw != nil {
		bin := tarFile(t, raw, "usr/local/bin/whsim")
		if err := checkELF(bin, "arm64"); err != nil {
			t.Errorf("arm64 image's whsim: %v", err)
		}
	}

	// After goreleaser: the same binaries in its dist/ layout, the labels
	// from its metadata.json. The same inputs make the same image, digest
	// for digest.
	dist := filepath.Join(tmp, "dist")
	for arch, dir := range map[string]string{"amd64": "whsim_linux_amd64_v1", "arm64": "whsim_linux_arm64_v8.0"} {
		if err := os.MkdirAll(filepath.Join(dist, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dist, dir, "whsim"), tarFile(t, layers[arch], "usr/local/bin/whsim"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	meta := `{"project_name":"whsim","tag":"v` + testVersion + `","version":"` + testVersion + `","commit":"` + testRevision + `","date":"` + testCreated + `"}`
	if err := os.WriteFile(filepath.Join(dist, "metadata.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dist, "oci")
	cmd = exec.Command("bash", "../oci-image.sh", again)
	cmd.Env = append(os.Environ(), "GORELEASER_DIST="+dist, "CA_FILE="+caFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GORELEASER_DIST=dist oci-image.sh: %v\n%s", err, b)
	}
	if b2, err := os.ReadFile(filepath.Join(again, "index.json")); err != nil || !bytes.Equal(b, b2) {
		t.Errorf("the image rebuilt from goreleaser's dist differs:\n%s\n%s (%v)", b, b2, err)
	}
}

// tarFile returns the content of one file of a layer.
func tarFile(t *testing.T, raw []byte, name string) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the layer: %v", name, err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// unpack writes the layer into dir, checking the owners and modes a
// runtime would apply (an unprivileged test cannot chown).
func unpack(t *testing.T, raw []byte, dir string) map[string]*tar.Header {
	t.Helper()
	headers := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return headers
		}
		if err != nil {
			t.Fatal(err)
		}
		headers[h.Name] = h
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, os.FileMode(h.Mode)&0o777); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: unexpected type %c", h.Name, h.Typeflag)
		}
	}
}

func runImage(t *testing.T, raw []byte, c imageConfig, tlsURL string) {
	root := t.TempDir()
	headers := unpack(t, raw, root)
	if h := headers["tmp/"]; h == nil || h.Mode != 0o1777 || h.Uid != 0 {
		t.Errorf("/tmp: %+v, want a root-owned directory with mode 1777", h)
	}
	if h := headers["home/whsim/"]; h == nil || h.Uid != 65532 || h.Mode != 0o755 {
		t.Errorf("/home/whsim: %+v, want owned by 65532, mode 755 (the working directory, where any user looks for whsim.yaml)", h)
	}
	if c.Config.WorkingDir != "/home/whsim" {
		t.Errorf("WorkingDir %q", c.Config.WorkingDir)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	group, _ := os.ReadFile(filepath.Join(root, "etc/group"))
	if !strings.Contains(string(passwd), "\nwhsim:x:65532:65532:") || !strings.Contains(string(group), "\nwhsim:x:65532:") {
		t.Errorf("the user 65532 is not in /etc/passwd and /etc/group:\n%s\n%s", passwd, group)
	}
	for _, h := range headers {
		if h.ModTime.UTC().Format("2006-01-02T15:04:05Z") != testCreated {
			t.Errorf("%s: mtime %s, want %s (--created)", h.Name, h.ModTime, testCreated)
		}
	}

	// The entrypoint as a runtime finds it: "whsim" on the image's PATH.
	var bin string
	for _, e := range c.Config.Env {
		if dirs, ok := strings.CutPrefix(e, "PATH="); ok {
			for _, d := range filepath.SplitList(dirs) {
				if p := filepath.Join(root, d, c.Config.Entrypoint[0]); fileExists(p) {
					bin = p
					break
				}
			}
		}
	}
	if bin == "" {
		t.Fatalf("entrypoint %q is on none of the image's PATH (%q)", c.Config.Entrypoint, c.Config.Env)
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the image's amd64 binary does not run on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	work := t.TempDir()
	// The image's environment, rooted in the unpacked tree; an empty
	// SSL_CERT_DIR so that only the image's bundle is trusted.
	env := []string{"HOME=" + work, "NO_COLOR=1", "SSL_CERT_FILE=" + filepath.Join(root, caPath), "SSL_CERT_DIR=" + t.TempDir()}
	whsim := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, work
		return cmd
	}

	out, err := whsim("version").Output()
	if err != nil || !strings.Contains(string(out), "whsim "+testVersion+" (commit "+testRevision) || !strings.Contains(string(out), "linux/amd64") {
		t.Errorf("whsim version: %q, %v", out, err)
	}

	readyFile := filepath.Join(work, "listen.url")
	capture := filepath.Join(work, "calls.ndjson")
	listen := whsim("listen", "--addr", "127.0.0.1:0", "--ready-file", readyFile, "--capture", capture)
	var listenErr bytes.Buffer
	listen.Stderr = &listenErr
	if err := listen.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = listen.Process.Kill()
			_ = listen.Wait()
		}
	}()
	// The health check, as the image's HEALTHCHECK runs it: it waits for
	// the listen to accept connections.
	u, err := whsim("ready", readyFile, "--wait", "30s").Output()
	if err != nil {
		t.Fatalf("whsim ready --wait: %v\nlisten: %s", err, listenErr.Bytes())
	}
	url := strings.TrimSpace(string(u))
	if b, err := whsim("send", "--url", url, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1").CombinedOutput(); err != nil {
		t.Errorf("whsim send to the image's listen: %v\n%s", err, b)
	}
	// TLS: the image's certificates are what whsim trusts.
	if b, err := whsim("send", "--url", tlsURL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1").CombinedOutput(); err != nil {
		t.Errorf("whsim send over TLS with the image's certificates: %v\n%s", err, b)
	}
	untrusting := whsim("send", "--url", tlsURL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1")
	untrusting.Env = append(slices.Clone(env[:3]), "SSL_CERT_FILE="+filepath.Join(root, "etc/passwd"), "SSL_CERT_DIR="+t.TempDir())
	if b, err := untrusting.CombinedOutput(); err == nil {
		t.Errorf("whsim send over TLS trusting no certificate succeeded, so the test above proves nothing:\n%s", b)
	}

	if err := listen.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = listen.Wait()
	stopped = true
	if err != nil {
		t.Fatalf("listen: %v\n%s", err, listenErr.Bytes())
	}
	if !strings.Contains(listenErr.String(), "listen stopped: 1 call ") {
		t.Errorf("listen's summary: %s", listenErr.Bytes())
	}
	if b, _ := os.ReadFile(capture); strings.Count(string(b), "\n") != 1 {
		t.Errorf("capture: want the one call sent, got %q", b)
	}
	// Stopped: the file is gone and the health check says not ready.
	notReady := whsim("ready", readyFile)
	if err := notReady.Run(); err == nil || notReady.ProcessState.ExitCode() != 1 {
		t.Errorf("whsim ready after listen stopped: %v, want exit 1", err)
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

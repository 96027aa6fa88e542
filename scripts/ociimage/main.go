// Command ociimage writes whsim's container image as an OCI image layout
// (https://github.com/opencontainers/image-spec/blob/main/image-layout.md):
// index.json, oci-layout and blobs/sha256/..., one image index holding a
// linux/amd64 and a linux/arm64 image. It needs no Docker and pulls no base
// image: each image is one layer built here from nothing but the static
// binary, the build machine's CA certificates, /etc/passwd and /etc/group
// for a non-root user, and a writable /tmp.
//
// scripts/oci-image.sh builds the binaries and runs it; see docs/ci.md for
// loading or pushing the result. The standard library is enough for the
// layout (tar, gzip, sha256 and JSON), so it takes no dependency such as
// go-containerregistry, which would pull a registry client into the
// module for what is a few hundred lines here.
//
// The layers are deterministic: fixed modification times (--created),
// owners and modes, entries in a fixed order, gzip without a name or
// time; the same binaries and flags give the same digests.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Media types of the OCI image spec.
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// The image's user: 65532 is the non-root uid distroless images use, so
// volume permissions set up for those fit this one too.
const (
	uid      = 65532
	userName = "whsim"
	home     = "/home/whsim"
	binDir   = "/usr/local/bin"
	caPath   = "/etc/ssl/certs/ca-certificates.crt"
)

type options struct {
	out      string
	binaries binaryFlags
	caFile   string
	version  string
	revision string
	source   string
	licenses string
	created  string
	metadata string
}

// binaryFlags is --binary os/arch=path, repeated.
type binaryFlags []platformBinary

type platformBinary struct {
	OS, Arch, Variant, Path string
}

func (b *binaryFlags) String() string { return fmt.Sprint(*b) }

func (b *binaryFlags) Set(s string) error {
	plat, path, ok := strings.Cut(s, "=")
	osName, arch, ok2 := strings.Cut(plat, "/")
	if !ok || !ok2 || path == "" || osName != "linux" || (arch != "amd64" && arch != "arm64") {
		return fmt.Errorf("%q: want linux/amd64=<path> or linux/arm64=<path>", s)
	}
	for _, have := range *b {
		if have.Arch == arch {
			return fmt.Errorf("%q: linux/%s given twice", s, arch)
		}
	}
	variant := ""
	if arch == "arm64" {
		variant = "v8" // what registries and runtimes match arm64 images on
	}
	*b = append(*b, platformBinary{OS: osName, Arch: arch, Variant: variant, Path: path})
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "", "directory to write the OCI layout to (must not exist, or be empty)")
	fs.Var(&o.binaries, "binary", "linux/amd64=<path> or linux/arm64=<path>: a static whsim binary (repeat for each)")
	fs.StringVar(&o.caFile, "ca-file", caPath, "CA certificates bundle to copy into the image")
	fs.StringVar(&o.version, "version", "", "image version label (org.opencontainers.image.version)")
	fs.StringVar(&o.revision, "revision", "", "commit the binaries were built from (org.opencontainers.image.revision)")
	fs.StringVar(&o.source, "source", "https://github.com/whsim/whsim", "source repository URL (org.opencontainers.image.source)")
	fs.StringVar(&o.licenses, "licenses", "MIT", "SPDX licence expression (org.opencontainers.image.licenses)")
	fs.StringVar(&o.created, "created", "", "creation time, RFC 3339; also every file's modification time")
	fs.StringVar(&o.metadata, "goreleaser-metadata", "", "take --version, --revision and --created from goreleaser's dist/metadata.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.metadata != "" {
		if err := o.readMetadata(); err != nil {
			return err
		}
	}
	switch {
	case o.out == "":
		return errors.New("--out: missing")
	case len(o.binaries) == 0:
		return errors.New("--binary: missing")
	case o.version == "" || o.revision == "" || o.created == "":
		return errors.New("--version, --revision and --created are all needed (or --goreleaser-metadata)")
	}
	created, err := time.Parse(time.RFC3339, o.created)
	if err != nil {
		return fmt.Errorf("--created: %w", err)
	}
	ca, err := os.ReadFile(o.caFile)
	if err != nil {
		return fmt.Errorf("--ca-file: %w", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return fmt.Errorf("--ca-file %s: no PEM certificate in it", o.caFile)
	}
	if err := emptyDir(o.out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return write(&o, created.UTC(), ca)
}

// readMetadata fills the labels from goreleaser's metadata.json, so that
// the image says what the release archives say.
func (o *options) readMetadata() error {
	b, err := os.ReadFile(o.metadata)
	if err != nil {
		return fmt.Errorf("--goreleaser-metadata: %w", err)
	}
	var m struct{ Version, Commit, Date string }
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("--goreleaser-metadata %s: %w", o.metadata, err)
	}
	o.version, o.revision, o.created = m.Version, m.Commit, m.Date
	return nil
}

// emptyDir makes dir, or accepts it when it exists and is empty: writing
// into an old layout would leave its blobs and mix two builds.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty", dir)
	}
	return nil
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant,omitempty"`
}

type index struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []descriptor      `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Config        descriptor        `json:"config"`
	Layers        []descriptor      `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// imageConfig is the part of the OCI image config whsim's image sets.
type imageConfig struct {
	Created      string `json:"created"`
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant,omitempty"`
	Config       struct {
		User       string            `json:"User"`
		Env        []string          `json:"Env"`
		Entrypoint []string          `json:"Entrypoint"`
		WorkingDir string            `json:"WorkingDir"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
	RootFS struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
	History []struct {
		Created   string `json:"created"`
		CreatedBy string `json:"created_by"`
	} `json:"history"`
}

func write(o *options, created time.Time, ca []byte) error {
	labels := map[string]string{
		"org.opencontainers.image.title":    "whsim",
		"org.opencontainers.image.source":   o.source,
		"org.opencontainers.image.version":  o.version,
		"org.opencontainers.image.revision": o.revision,
		"org.opencontainers.image.licenses": o.licenses,
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
	}
	// amd64 first whatever the flag order: the same inputs, the same index.
	bins := append(binaryFlags(nil), o.binaries...)
	sort.Slice(bins, func(i, j int) bool { return bins[i].Arch < bins[j].Arch })
	var images []descriptor
	for _, b := range bins {
		d, err := writeImage(o.out, b, created, ca, labels)
		if err != nil {
			return fmt.Errorf("linux/%s: %w", b.Arch, err)
		}
		images = append(images, d)
	}
	multi, err := writeJSONBlob(o.out, mediaIndex, index{SchemaVersion: 2, MediaType: mediaIndex, Manifests: images, Annotations: labels})
	if err != nil {
		return err
	}
	// The layout's own index names the multi-platform index by version, as
	// `skopeo copy --all oci:<dir>:<version>` and crane expect.
	multi.Annotations = map[string]string{"org.opencontainers.image.ref.name": o.version}
	top, err := json.MarshalIndent(index{SchemaVersion: 2, MediaType: mediaIndex, Manifests: []descriptor{multi}}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "index.json"), append(top, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`+"\n"), 0o644)
}

func writeImage(out string, b platformBinary, created time.Time, ca []byte, labels map[string]string) (descriptor, error) {
	bin, err := os.ReadFile(b.Path)
	if err != nil {
		return descriptor{}, err
	}
	if err := checkELF(bin, b.Arch); err != nil {
		return descriptor{}, fmt.Errorf("%s: %w", b.Path, err)
	}
	layer, diffID, err := rootfs(bin, ca, created)
	if err != nil {
		return descriptor{}, err
	}
	layerDesc, err := writeBlob(out, mediaLayer, layer)
	if err != nil {
		return descriptor{}, err
	}
	var c imageConfig
	c.Created = created.Format(time.RFC3339)
	c.Architecture, c.OS, c.Variant = b.Arch, b.OS, b.Variant
	c.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	c.Config.Env = []string{"PATH=" + binDir, "SSL_CERT_FILE=" + caPath, "HOME=" + home}
	c.Config.Entrypoint = []string{"whsim"}
	c.Config.WorkingDir = home
	c.Config.Labels = labels
	c.RootFS.Type = "layers"
	c.RootFS.DiffIDs = []string{diffID}
	c.History = append(c.History, struct {
		Created   string `json:"created"`
		CreatedBy string `json:"created_by"`
	}{c.Created, "scripts/ociimage: whsim, CA certificates, user " + userName + ", /tmp"})
	cfgDesc, err := writeJSONBlob(out, mediaConfig, c)
	if err != nil {
		return descriptor{}, err
	}
	m := manifest{SchemaVersion: 2, MediaType: mediaManifest, Config: cfgDesc, Layers: []descriptor{layerDesc}, Annotations: labels}
	d, err := writeJSONBlob(out, mediaManifest, m)
	if err != nil {
		return descriptor{}, err
	}
	d.Platform = &platform{Architecture: b.Arch, OS: b.OS, Variant: b.Variant}
	return d, nil
}

// checkELF refuses a binary for another machine: an arm64 image with an
// amd64 binary would only fail when run.
func checkELF(b []byte, arch string) error {
	const emX8664, emAArch64 = 62, 183
	if len(b) < 20 || string(b[:4]) != "\x7fELF" {
		return errors.New("not an ELF binary (build with GOOS=linux)")
	}
	machine := int(b[18]) | int(b[19])<<8 // little-endian on both
	want := map[string]int{"amd64": emX8664, "arm64": emAArch64}[arch]
	if machine != want {
		return fmt.Errorf("ELF machine %d, not %s", machine, arch)
	}
	return nil
}

// entry is one file of the root filesystem.
type entry struct {
	name    string
	mode    int64
	uid     int
	dir     bool
	content []byte
}

// rootfs returns the gzipped layer and the sha256 of its uncompressed tar
// (the diff id).
func rootfs(bin, ca []byte, mtime time.Time) ([]byte, string, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, home)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", userName, uid)
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, content: []byte(group)},
		{name: "etc/passwd", mode: 0o644, content: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, content: ca},
		{name: "home/", mode: 0o755, dir: true},
		// Readable by all: it is the working directory, where whsim looks
		// for whsim.yaml, and a container run as another user (--user,
		// OpenShift's random uids) must be able to look.
		{name: "home/whsim/", mode: 0o755, uid: uid, dir: true},
		{name: "root/", mode: 0o700, dir: true},
		// Sticky and world-writable, as every /tmp: whsim's ready files,
		// captures and reports go there when no volume is mounted.
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: "usr/local/bin/whsim", mode: 0o755, content: bin},
	}
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.uid,
			ModTime: mtime,
			Format:  tar.FormatPAX,
		}
		if e.uid == uid {
			h.Uname, h.Gname = userName, userName
		} else {
			h.Uname, h.Gname = "root", "root"
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.content))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write(e.content); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw.Bytes())
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, "", err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return gz.Bytes(), "sha256:" + hex.EncodeToString(sum[:]), nil
}

func writeJSONBlob(out, mediaType string, v any) (descriptor, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return descriptor{}, err
	}
	return writeBlob(out, mediaType, b)
}

// writeBlob stores b under its digest.
func writeBlob(out, mediaType string, b []byte) (descriptor, error) {
	sum := sha256.Sum256(b)
	hexSum := hex.EncodeToString(sum[:])
	dir := filepath.Join(out, "blobs", "sha256")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return descriptor{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, hexSum), b, 0o644); err != nil {
		return descriptor{}, err
	}
	return descriptor{MediaType: mediaType, Digest: "sha256:" + hexSum, Size: int64(len(b))}, nil
}

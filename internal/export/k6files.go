package export

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/tlsconf"
)

// The files a k6 export writes into its directory.
const (
	scriptFile  = "script.js"
	dataFile    = "data.json"
	TestRunFile = "testrun.yaml"
)

// K6Config is what a k6 export is asked for, as the command line gives it.
type K6Config struct {
	// Out is the directory the files go into.
	Out string
	// Secret, when set, has the script sign every call; it is only checked
	// here, never written.
	Secret string
	// Rate calls a second for Duration (0: each call once, with VUs).
	Rate     int
	Duration time.Duration
	VUs      int
	// MaxVUs bounds the VUs at a rate (0: twice the rate).
	MaxVUs      int
	P95         time.Duration
	Parallelism int
	// Name is the TestRun's and its ConfigMap's.
	Name string
}

// Check returns the first setting that is missing or out of range, naming
// its flag.
func (c K6Config) Check() error {
	switch {
	case c.Out == "":
		return fmt.Errorf("--out: give the directory to write the k6 files into")
	case c.Rate < 0:
		return fmt.Errorf("--rate %d: want 0 or more", c.Rate)
	case c.Rate > load.MaxRate:
		// send's bound: a script at 10^11 calls a second (and twice as
		// many VUs) is no load any machine makes, only a typo.
		return fmt.Errorf("--rate %d: want at most %d calls a second", c.Rate, int(load.MaxRate))
	case c.Rate > 0 && c.Duration < 0:
		// A duration given, but negative: "needs --duration" would send the
		// user looking for a flag they gave.
		return fmt.Errorf("--duration %s: want more than 0", c.Duration)
	case c.Rate > 0 && c.Duration == 0:
		return fmt.Errorf("--rate %d needs --duration", c.Rate)
	case c.Rate == 0 && c.Duration != 0:
		return fmt.Errorf("--duration needs --rate")
	case c.Rate > 0 && c.Duration < time.Second:
		// constant-arrival-rate refuses a shorter one: the script would not run.
		return fmt.Errorf("--duration %s: want at least 1s (k6's least for a rate)", c.Duration)
	case c.VUs < 1:
		return fmt.Errorf("--vus %d: want at least 1", c.VUs)
	case c.MaxVUs < 0:
		return fmt.Errorf("--max-vus %d: want 0 or more", c.MaxVUs)
	case c.P95 <= 0:
		return fmt.Errorf("--p95 %s: want more than 0", c.P95)
	case c.Parallelism < 1:
		return fmt.Errorf("--parallelism %d: want at least 1", c.Parallelism)
	}
	if err := checkName(c.Name); err != nil {
		return err
	}
	if c.Secret != "" {
		if _, err := sign.NewSigner(c.Secret); err != nil {
			return fmt.Errorf("--secret: %v", err)
		}
	}
	return nil
}

// Options are the script's and the TestRun's options for n calls. Each
// call once, no more VUs than calls share them: k6 refuses a
// shared-iterations scenario with fewer iterations than VUs, which the
// default 10 made of --count 1 (4 calls).
func (c K6Config) Options(n int, r Reach) (k6Options, testRunOptions) {
	vus := c.VUs
	if c.Rate == 0 {
		vus = max(min(vus, n), 1)
	}
	// --max-vus is at most that many (never below the VUs started with,
	// which k6 refuses); twice the rate only when not given: it had raised
	// --rate 50 --max-vus 20 to 100.
	maxVUs := c.MaxVUs
	if maxVUs == 0 {
		maxVUs = 2 * c.Rate
	}
	ko := k6Options{
		DataFile: dataFile, Calls: n, Rate: float64(c.Rate), Duration: c.Duration,
		VUs: vus, MaxVUs: max(maxVUs, c.VUs), P95: c.P95, Sign: c.Secret != "", Reach: r,
	}
	tr := testRunOptions{Name: c.Name, Script: scriptFile, DataFile: dataFile, Parallelism: c.Parallelism, Sign: ko.Sign}
	if r.CAFile != "" {
		tr.CAFile = caFile
	}
	return ko, tr
}

// WriteK6 writes the script, its data file and the TestRun manifest into
// dir, which must exist, and with a CA file (ko.Reach.CAFile) a copy of it
// as ca.pem: all of them whole or none of them (each of an
// earlier export left as it was), so that k6 never runs a script cut
// short, data cut short, or this export's script over an earlier one's
// data. A canceled ctx stops it, the files left as they were.
//
// It returns what the script and data make of a ConfigMap (their names and
// bytes), which the manifest written after them, and the usage printed,
// say when it is over what a ConfigMap holds.
func WriteK6(ctx context.Context, dir string, calls []Call, ko k6Options, tr testRunOptions) (int64, error) {
	cm := &counter{n: int64(len(tr.Script) + len(tr.DataFile))}
	var files []atomicfile.File
	if tr.CAFile != "" {
		pem, err := tlsconf.CAFilePEM(ko.Reach.CAFile)
		if err != nil {
			return 0, fmt.Errorf("--cacert %s: %w", ko.Reach.CAFile, err)
		}
		cm.n += int64(len(tr.CAFile) + len(pem))
		files = append(files, atomicfile.File{Path: filepath.Join(dir, tr.CAFile), Write: func(w io.Writer) error {
			_, err := w.Write(pem)
			return err
		}})
	}
	files = append(files, []atomicfile.File{
		{Path: filepath.Join(dir, scriptFile), Write: func(w io.Writer) error { return writeK6Script(io.MultiWriter(w, cm), ko) }},
		{Path: filepath.Join(dir, dataFile), Write: func(w io.Writer) error { return k6Data(ctx, io.MultiWriter(w, cm), calls) }},
		// Written in turn: the manifest knows the two files' size.
		{Path: filepath.Join(dir, TestRunFile), Write: func(w io.Writer) error {
			tr.ConfigMapBytes = cm.n
			return k6TestRun(w, tr)
		}},
	}...)
	for i, f := range files {
		files[i].Perm = 0o644
		if filepath.Base(f.Path) == dataFile {
			// Every call's headers and URL as they go, -H Authorization
			// and a ?token= included: kept from other users, as a
			// capture is.
			files[i].Perm = 0o600
		}
		files[i].Write = buffered(f.Write)
	}
	return cm.n, atomicfile.WriteAll(files)
}

// counter counts the bytes written to it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// buffered is write through a buffer. A failed write's error names the
// file already (atomicfile's writer does).
func buffered(write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
}

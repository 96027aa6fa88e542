package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/tlsconf"
)

// Reach is how the engines reach the receiver, as whsim send reaches it
// with the same flags: each call's time limit (--timeout) and the trust of
// an https receiver's certificate (--insecure, --cacert). Without it the
// engines kept their own limits (vegeta 30 s, k6 60 s), so a call send
// counts a timeout succeeded late under them, and a receiver on a private
// CA failed every exported call with "certificate signed by unknown
// authority" where send, given --cacert, delivered.
type Reach struct {
	Timeout  time.Duration
	Insecure bool
	// CAFile is the PEM file of the receiver's private CA, as given.
	CAFile string
}

// caFile is the name a k6 export copies --cacert to, beside the script:
// the pods of a TestRun read it from the ConfigMap as they read the
// script, and the commands printed need no path outside the directory.
const caFile = "ca.pem"

// vegetaFlags are vegeta attack's flags for r: -timeout always (vegeta's
// own is 30 s), -insecure, -root-certs FILE.
func (r Reach) vegetaFlags() string {
	s := " -timeout " + r.Timeout.String()
	if r.Insecure {
		s += " -insecure"
	}
	if r.CAFile != "" {
		s += " -root-certs " + pathWord(r.CAFile)
	}
	return s
}

// VegetaCheck returns why vegeta cannot be given r, beside Check's: a CA
// file whose path holds a comma, which vegeta's -root-certs reads as two
// files (it splits its value on commas), so the commands printed would
// fail every call on a file that does not exist.
func (r Reach) VegetaCheck() error {
	if strings.Contains(r.CAFile, ",") {
		return fmt.Errorf("--cacert %s: vegeta reads -root-certs as a list split on commas, so it cannot be given a path with a comma: copy the file to a path without one", r.CAFile)
	}
	return nil
}

// k6TimeoutMs is the script's per-call timeout in milliseconds, with
// their fraction (k6 reads a number as milliseconds).
func (r Reach) k6TimeoutMs() string {
	return strconv.FormatFloat(float64(r.Timeout)/float64(time.Millisecond), 'f', -1, 64)
}

// Check returns the first setting out of range, naming its flag: a time
// limit of 0 or less, a CA file that cannot be read or holds no
// certificate (the engine would fail every call on it, later).
func (r Reach) Check() error {
	if r.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: want more than 0", r.Timeout)
	}
	if r.CAFile != "" {
		if _, err := tlsconf.CAFilePEM(r.CAFile); err != nil {
			return fmt.Errorf("--cacert %s: %w", r.CAFile, err)
		}
	}
	return nil
}

// Package tlsconf builds the TLS settings of whsim's HTTP clients from the
// command line's --insecure and --cacert: one reading of a CA file and one
// set of defaults for the sending side (send, check, replay) and for
// listen's own calls out (--forward-to, --probe, the inspector's replay),
// which may not import each other.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/whsim/whsim/internal/ctxio"
)

// ErrNoCerts says a CA file held no PEM certificate.
var ErrNoCerts = errors.New("no PEM certificate found")

// Options are a client's TLS settings as the command line gives them.
type Options struct {
	// Insecure skips certificate verification (--insecure).
	Insecure bool
	// CAFile names a PEM file of extra roots, a private CA (--cacert).
	CAFile string
	// RootCAs, when set, are the roots trusted in place of the system's;
	// CAFile's certificates are added to them.
	RootCAs *x509.CertPool
}

// Config returns the tls.Config of o: TLS 1.2 at least, the roots of
// RootCAs or the system's with CAFile's added. The error is CAFile's: it
// cannot be read, or it holds no certificate (ErrNoCerts).
func Config(o Options) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.Insecure} //nolint:gosec // the user asked, and was warned
	if o.RootCAs != nil {
		// A copy: the caller's pool may change after the client is made.
		conf.RootCAs = o.RootCAs.Clone()
	}
	if o.CAFile == "" {
		return conf, nil
	}
	pem, err := readCAFile(o.CAFile)
	if err != nil {
		return nil, err
	}
	pool := conf.RootCAs
	if pool == nil {
		pool, err = x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, ErrNoCerts
	}
	conf.RootCAs = pool
	return conf, nil
}

// CurlFlags are curl's flags for o (-k, --cacert FILE), for the commands
// whsim prints to ask again by hand.
func CurlFlags(o Options) []string {
	var out []string
	if o.Insecure {
		out = append(out, "-k")
	}
	if o.CAFile != "" {
		out = append(out, "--cacert", o.CAFile)
	}
	return out
}

// CAFilePEM reads the CA file name as Config does and returns its bytes
// as they are, once it is known to hold a certificate (else ErrNoCerts):
// for a tool whsim writes a command or a file for (export's engines),
// which reads the file itself.
func CAFilePEM(name string) ([]byte, error) {
	pem, err := readCAFile(name)
	if err != nil {
		return nil, err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return nil, ErrNoCerts
	}
	return pem, nil
}

// maxCAFile bounds a CA file: a system's whole bundle is under a MiB.
const maxCAFile = 16 << 20

// readCAFile reads --cacert: a regular file only. A FIFO would hold the
// open until a writer came, deaf to Ctrl-C and SIGTERM, and a device
// (/dev/zero) would be read without end; both are said at once.
func readCAFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): want a file of PEM certificates", name, ctxio.FileKind(m))
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCAFile+1))
	if err == nil && len(b) > maxCAFile {
		err = fmt.Errorf("%s: larger than %d MiB: not a file of CA certificates", name, maxCAFile>>20)
	}
	return b, err
}

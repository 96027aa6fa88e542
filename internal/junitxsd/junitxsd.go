// Package junitxsd checks a JUnit report the way CI servers read it: valid
// against Jenkins' junit-10.xsd as a whole, each of its suites valid
// against Maven Surefire's schema (which describes one suite per file), and
// every suite's counts equal to the test cases it holds. The schemas are
// vendored in testdata/junit; xmllint (libxml2) validates. Tests use it.
package junitxsd

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// The vendored schemas, in testdata/junit at the module root.
const (
	Jenkins  = "junit-10.xsd"
	Surefire = "surefire-test-report-3.0.xsd"
)

// Check validates doc with the schemas in dir (testdata/junit) using the
// xmllint binary at xmllint, and checks its counts.
func Check(xmllint, dir string, doc []byte) error {
	tmp, err := os.MkdirTemp("", "junitxsd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := lint(xmllint, filepath.Join(dir, Jenkins), tmp, "report.xml", doc); err != nil {
		return err
	}
	suites, err := Suites(doc)
	if err != nil {
		return err
	}
	if len(suites) == 0 {
		return errors.New("no testsuite in the report")
	}
	for i, s := range suites {
		one := append([]byte(xml.Header), s...)
		if err := lint(xmllint, filepath.Join(dir, Surefire), tmp, "suite-"+strconv.Itoa(i)+".xml", one); err != nil {
			return err
		}
		if err := counts(s); err != nil {
			return fmt.Errorf("testsuite %d: %w", i, err)
		}
	}
	return nil
}

func lint(xmllint, schema, tmp, name string, doc []byte) error {
	f := filepath.Join(tmp, name)
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		return err
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", schema, f).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint --schema %s: %v\n%s\n--- document:\n%s", filepath.Base(schema), err, out, doc)
	}
	return nil
}

// Suites returns the bytes of each top-level testsuite element of doc.
func Suites(doc []byte) ([][]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var out [][]byte
	depth := 0
	start := int64(0)
	for {
		before := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == "testsuite" {
				start = before
			}
		case xml.EndElement:
			if depth == 2 && t.Name.Local == "testsuite" {
				out = append(out, bytes.TrimSpace(doc[start:d.InputOffset()]))
			}
			depth--
		}
	}
}

// counts checks a suite's tests, failures, errors and skipped against its
// test cases, and that no two of its cases share a class and name (JUnit
// readers would merge them).
func counts(suite []byte) error {
	var s struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Class   string    `xml:"classname,attr"`
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(suite, &s); err != nil {
		return err
	}
	var f, e, sk int
	seen := map[[2]string]bool{}
	for _, c := range s.Cases {
		key := [2]string{c.Class, c.Name}
		if seen[key] {
			return fmt.Errorf("two test cases named %q (class %q): JUnit readers merge them", c.Name, c.Class)
		}
		seen[key] = true
		if c.Failure != nil {
			f++
		}
		if c.Error != nil {
			e++
		}
		if c.Skipped != nil {
			sk++
		}
	}
	if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
		return fmt.Errorf("counts tests=%d failures=%d errors=%d skipped=%d, cases say %d, %d, %d, %d",
			s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
	}
	return nil
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/junitxsd"
)

// junitXSD checks JUnit files as CI servers read them: junitxsd FILE...
// validates each against Jenkins' junit-10.xsd, each suite against
// Surefire's schema, and the suites' counts against their cases. A script
// that uses it starts with [!exec:xmllint] skip.
func junitXSD(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: junitxsd file...")
	}
	xmllint, err := exec.LookPath("xmllint")
	ts.Check(err)
	dir, err := filepath.Abs("../../testdata/junit")
	ts.Check(err)
	for _, f := range args {
		b, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		if err := junitxsd.Check(xmllint, dir, b); err != nil {
			ts.Fatalf("%s: %v", f, err)
		}
	}
}

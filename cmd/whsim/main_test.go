package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/cli"
)

// TestMain makes this test binary double as whsim, so the scripts run the
// real command line: flag parsing, config, streams and exit codes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"whsim": func() {
			os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OSStreams(), cli.Build{Version: "v0.0.0-test"}))
		},
		"hookrecv":     func() { os.Exit(hookRecv()) },
		"echorecv":     func() { os.Exit(echoRecv()) },
		"storerecv":    func() { os.Exit(storeRecv()) },
		"docrecv":      func() { os.Exit(docRecv()) },
		"holdrecv":     func() { os.Exit(holdRecv()) },
		"unlinkrecv":   func() { os.Exit(unlinkRecv()) },
		"gaterecv":     func() { os.Exit(gateRecv()) },
		"duprecv":      func() { os.Exit(dupRecv()) },
		"rawrecv":      func() { os.Exit(rawRecv()) },
		"droprecv":     func() { os.Exit(dropRecv()) },
		"earlyrecv":    func() { os.Exit(earlyRecv()) },
		"closerecv":    func() { os.Exit(closeRecv()) },
		"h2recv":       func() { os.Exit(h2Recv()) },
		"streamfeed":   func() { os.Exit(streamFeed()) },
		"connectproxy": func() { os.Exit(connectProxy()) },
	})
}

const bashCompletion = "/usr/share/bash-completion/bash_completion"

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Scripts must not pick up the developer's own config or colours.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("NO_COLOR", "")
			// The committed completion scripts, which completion.txtar
			// compares with what the binary prints.
			dir, err := filepath.Abs("../../completions")
			env.Setenv("COMPLETIONS", dir)
			return err
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bashcompletion": // the bash-completion package the bash script builds on
				_, err := os.Stat(bashCompletion)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits":        exits,
			"waitfile":     waitFile,
			"freeport":     freePort,
			"envfile":      envFile,
			"bodies":       captureBodies,
			"post":         httpPost,
			"rawsend":      rawSend,
			"get":          httpGet,
			"interrupt":    interrupt,
			"linecount":    lineCount,
			"reproduce":    reproduceCmd,
			"reportcmd":    reportCommand,
			"rerunhint":    rerunHint,
			"junitxsd":     junitXSD,
			"waitanswered": waitAnswered,
			"accounts":     accounts,
			"distinctdocs": distinctDocs,
			"checkcounts":  checkCounts,
			"bigjson":      bigJSON,
			"rawreceiver":  rawReceiver,
		},
	})
}

// exits runs a program and checks its exit code: exits 2 whsim --bogus.
// stdout and stderr are then checked as after exec.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits <code> <program> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

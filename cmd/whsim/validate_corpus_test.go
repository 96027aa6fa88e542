package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestValidateCorpus runs the real whsim binary on every case of
// testdata/validate (see expect.txt there, which TestValidateCorpusGenerated
// makes) and checks its exit code and the rule ids of its findings.
func TestValidateCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "whsim")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join("..", "..", "testdata", "validate")
	f, err := os.Open(filepath.Join(dir, "expect.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, " | ")
		if len(cols) != 4 {
			t.Fatalf("expect.txt: bad line %q", line)
		}
		file, wantExit, extra, wantRules := cols[0], cols[1], cols[2], cols[3]
		n++
		t.Run(file, func(t *testing.T) {
			args := []string{"validate", "--output", "json"}
			if extra != "-" {
				args = append(args, strings.Fields(extra)...)
			}
			args = append(args, filepath.Join(dir, file))
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
			out, err := cmd.Output()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if got := strconv.Itoa(code); got != wantExit {
				t.Errorf("whsim %s: exit %s, want %s\n%s", strings.Join(args, " "), got, wantExit, out)
			}
			if wantExit == "2" {
				return
			}
			var rules []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var rec struct{ Type, Rule string }
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("output line %q: %v", l, err)
				}
				if rec.Type == "finding" && !slices.Contains(rules, rec.Rule) {
					rules = append(rules, rec.Rule)
				}
			}
			slices.Sort(rules)
			got := strings.Join(rules, ",")
			if got == "" {
				got = "-"
			}
			if got != wantRules {
				t.Errorf("rules %s, want %s\n%s", got, wantRules, out)
			}
		})
	}
	if n < 60 {
		t.Errorf("the corpus has %d cases, want at least 60", n)
	}
}

package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionYAML is the part of action.yml a runner reads.
type actionYAML struct {
	Inputs map[string]struct {
		Default  string `yaml:"default"`
		Required bool   `yaml:"required"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID               string            `yaml:"id"`
			If               string            `yaml:"if"`
			Shell            string            `yaml:"shell"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
			Run              string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// runner runs a composite action's steps in bash as GitHub's runner does,
// for the expressions action.yml uses: ${{ inputs.X }},
// ${{ steps.S.outputs.Y }} and an if: that an input is not empty, alone
// (the step runs only when every step before it passed, as success() is
// implied) or after "!cancelled() && " (it runs after a failed step too).
// Anything else fails the test, so action.yml cannot grow a construct
// this does not check.
type runner struct {
	t      *testing.T
	root   string            // the repository: GITHUB_ACTION_PATH
	env    []string          // the job's environment
	dir    string            // the job's working directory
	inputs map[string]string // with: of the workflow step
}

// result is what the workflow sees of the action: its outputs, and the
// failing step's exit code (0 when every step passed), its stderr.
type result struct {
	outputs map[string]string
	code    int
	stderr  string
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

func (r *runner) run(a *actionYAML) result {
	r.t.Helper()
	if a.Runs.Using != "composite" {
		r.t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		v, ok := r.inputs[name]
		if !ok {
			if in.Required {
				r.t.Fatalf("input %s is required", name)
			}
			v = in.Default
		}
		inputs[name] = v
	}
	for name := range r.inputs {
		if _, ok := a.Inputs[name]; !ok {
			r.t.Fatalf("action.yml has no input %s", name)
		}
	}
	steps := map[string]map[string]string{}
	eval := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			if name, ok := strings.CutPrefix(e, "inputs."); ok {
				v, ok := inputs[name]
				if !ok {
					r.t.Fatalf("%s: no such input", m)
				}
				return v
			}
			if p := strings.Split(e, "."); len(p) == 4 && p[0] == "steps" && p[2] == "outputs" {
				return steps[p[1]][p[3]] // an output never set is "", as on GitHub
			}
			r.t.Fatalf("expression %s: the test's runner knows inputs.* and steps.*.outputs.* only", m)
			return ""
		})
	}
	res := result{outputs: map[string]string{}}
	failed := false // a step before failed: the composite's failure()
	for i, st := range a.Runs.Steps {
		cond, afterFailure := strings.CutPrefix(st.If, "!cancelled() && ")
		if failed && !afterFailure {
			continue // success() implied: skipped after a failed step
		}
		if cond != "" {
			name, ok := strings.CutSuffix(cond, " != ''")
			name, ok2 := strings.CutPrefix(name, "inputs.")
			if !ok || !ok2 {
				r.t.Fatalf("step %d: if %q: the test's runner knows \"inputs.X != ''\", alone or after \"!cancelled() && \", only", i, st.If)
			}
			if inputs[name] == "" {
				continue
			}
		}
		if st.Shell != "bash" {
			r.t.Fatalf("step %d: shell %q, want bash (the script is bash)", i, st.Shell)
		}
		out := filepath.Join(r.t.TempDir(), "output")
		if err := os.WriteFile(out, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
		env := append(r.jobEnv(), "GITHUB_ACTION_PATH="+r.root, "GITHUB_OUTPUT="+out)
		for k, v := range st.Env {
			env = append(env, k+"="+eval(v))
		}
		// GitHub runs a bash step as bash --noprofile --norc -eo pipefail {0}.
		script := filepath.Join(r.t.TempDir(), "step.sh")
		if err := os.WriteFile(script, []byte(eval(st.Run)), 0o644); err != nil {
			r.t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Env, cmd.Dir = env, r.dir
		if st.WorkingDirectory != "" {
			cmd.Dir = filepath.Join(r.dir, eval(st.WorkingDirectory))
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		var err error
		if fi, serr := os.Stat(cmd.Dir); serr != nil || !fi.IsDir() {
			// GitHub's runner fails such a step without starting it
			// ("An error occurred trying to start process '/usr/bin/bash'
			// with working directory ..."): nothing runs, no output is set.
			err = exec.Command("bash", "-c", "exit 1").Run()
			fmt.Fprintf(&stderr, "Error: An error occurred trying to start process 'bash' with working directory '%s'. No such file or directory\n", cmd.Dir)
		} else {
			err = cmd.Run()
		}
		b, _ := os.ReadFile(out)
		steps[st.ID] = map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				steps[st.ID][k] = v
			}
		}
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				r.t.Fatal(err)
			}
			// The action fails with its first failing step: its code, and
			// what every failing step said.
			if !failed {
				res.code = ee.ExitCode()
			}
			res.stderr += stderr.String()
			failed = true
		}
	}
	for name, o := range a.Outputs {
		res.outputs[name] = eval(o.Value)
	}
	return res
}

// jobEnv is the job's environment with GITHUB_PATH's lines before PATH,
// as the runner prepares each step.
func (r *runner) jobEnv() []string {
	var env []string
	var ghPath, path string
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH":
			path = v
			continue
		case "GITHUB_PATH":
			ghPath = v
		}
		env = append(env, kv)
	}
	if b, err := os.ReadFile(ghPath); err == nil {
		lines := strings.Fields(string(b))
		for i := len(lines) - 1; i >= 0; i-- {
			path = lines[i] + string(filepath.ListSeparator) + path
		}
	}
	return append(env, "PATH="+path)
}

// releaseNames renders .goreleaser.yaml's archive and checksum names for
// a version, os and arch: the names the action must download.
func releaseNames(t *testing.T, version, goos, goarch string) (archive, checksums string) {
	t.Helper()
	b, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		ProjectName string `yaml:"project_name"`
		Archives    []struct {
			Formats         []string `yaml:"formats"`
			FormatOverrides []struct {
				Goos    string   `yaml:"goos"`
				Formats []string `yaml:"formats"`
			} `yaml:"format_overrides"`
			NameTemplate string `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Archives) != 1 || len(g.Archives[0].Formats) != 1 || g.Archives[0].Formats[0] != "tar.gz" {
		t.Fatalf(".goreleaser.yaml: want one tar.gz archive, got %+v", g.Archives)
	}
	render := func(tmpl string) string {
		s := strings.NewReplacer("{{ .ProjectName }}", g.ProjectName, "{{ .Version }}", version, "{{ .Os }}", goos, "{{ .Arch }}", goarch).Replace(tmpl)
		if strings.Contains(s, "{{") {
			t.Fatalf(".goreleaser.yaml: name template %q uses more than the test renders", tmpl)
		}
		return s
	}
	ext := "tar.gz"
	for _, o := range g.Archives[0].FormatOverrides {
		if o.Goos == goos && len(o.Formats) == 1 {
			ext = o.Formats[0]
		}
	}
	return render(g.Archives[0].NameTemplate) + "." + ext, render(g.Checksum.NameTemplate)
}

// targz makes an archive as goreleaser lays it out: the binary and the
// docs at the top.
func targz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"whsim", "README.md", "LICENSE"} {
		b := files[name]
		mode := int64(0o644)
		if name == "whsim" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipOf makes a zip holding one file, as goreleaser's Windows archives
// hold whsim.exe at the top.
func zipOf(t *testing.T, name string, content []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestAction runs action.yml's steps as a runner would against release
// assets served on 127.0.0.1: the checksum verified (a tampered archive
// refused), whsim on PATH for later steps, the command's exit code passed
// on, and check's job summary, JUnit and report written.
func TestAction(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing: the action's script needs it", tool)
		}
	}
	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if runnerOS == "" || runnerArch == "" {
		t.Skipf("the action's tar.gz archives are for Linux and macOS on amd64 and arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action actionYAML
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// This test binary is whsim when it is called whsim (TestMain).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}

	// Two releases: 1.2.3 as published; 6.6.6 whose archive was replaced
	// after the checksums were made.
	assets := map[string][]byte{}
	for _, version := range []string{"1.2.3", "6.6.6"} {
		archive, sums := releaseNames(t, version, runtime.GOOS, runtime.GOARCH)
		good := targz(t, map[string][]byte{"whsim": bin, "README.md": []byte("# whsim\n"), "LICENSE": []byte("MIT\n")})
		other, _ := releaseNames(t, version, "windows", "arm64")
		assets["/v"+version+"/"+sums] = fmt.Appendf(nil, "%s  %s\n%s  %s\n", sha256hex([]byte("other")), other, sha256hex(good), archive)
		assets["/v"+version+"/"+archive] = good
		if version == "6.6.6" {
			assets["/v"+version+"/"+archive] = targz(t, map[string][]byte{"whsim": []byte("#!/bin/sh\necho owned\n")})
		}
	}
	// 2.0.0 for the runners this machine is not: Windows on X64 (a zip
	// holding whsim.exe) and macOS on ARM64. What they hold is not run
	// here; that the right one is fetched, verified and unpacked is.
	otherSystems := map[string][]byte{}
	var otherSums []byte
	for _, target := range [][2]string{{"windows", "amd64"}, {"darwin", "arm64"}} {
		archive, sums := releaseNames(t, "2.0.0", target[0], target[1])
		var b []byte
		if strings.HasSuffix(archive, ".zip") {
			b = zipOf(t, "whsim.exe", []byte("whsim for windows/amd64"))
		} else {
			b = targz(t, map[string][]byte{"whsim": []byte("whsim for darwin/arm64")})
		}
		otherSystems[target[0]] = b
		assets["/v2.0.0/"+archive] = b
		otherSums = fmt.Appendf(otherSums, "%s  %s\n", sha256hex(b), archive)
		assets["/v2.0.0/"+sums] = otherSums
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := assets[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	// The receiver check grades: it answers 200 to everything, so
	// accepts-valid passes and rejects-malformed fails.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer receiver.Close()

	// newJob is a fresh job: its GITHUB_* files, a workspace, and the PATH
	// of the test without any whsim on it.
	newJob := func(t *testing.T, inputs map[string]string) (*runner, map[string]string) {
		dir := t.TempDir()
		files := map[string]string{}
		for _, f := range []string{"GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
			files[f] = filepath.Join(dir, f)
			if err := os.WriteFile(files[f], nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		work := filepath.Join(dir, "workspace")
		if err := os.MkdirAll(filepath.Join(work, "reports"), 0o755); err != nil {
			t.Fatal(err)
		}
		var path []string
		for _, p := range filepath.SplitList(os.Getenv("PATH")) {
			if _, err := os.Stat(filepath.Join(p, "whsim")); err != nil {
				path = append(path, p) // testscript's bin dir holds a whsim: not the action's
			}
		}
		env := []string{
			"HOME=" + dir, "NO_COLOR=1", "PATH=" + strings.Join(path, string(filepath.ListSeparator)),
			"GITHUB_PATH=" + files["GITHUB_PATH"], "GITHUB_STEP_SUMMARY=" + files["GITHUB_STEP_SUMMARY"],
			"RUNNER_OS=" + runnerOS, "RUNNER_ARCH=" + runnerArch, "RUNNER_TEMP=" + filepath.Join(dir, "runner-temp"),
			"GITHUB_ACTIONS=true",
		}
		inputs["download-base"] = srv.URL
		return &runner{t: t, root: root, env: env, dir: work, inputs: inputs}, files
	}

	t.Run("install, then whsim is on PATH", func(t *testing.T) {
		r, files := newJob(t, map[string]string{"version": "v1.2.3"})
		res := r.run(&action)
		if res.code != 0 {
			t.Fatalf("install failed (%d): %s", res.code, res.stderr)
		}
		if res.outputs["version"] != "1.2.3" || !filepath.IsAbs(res.outputs["whsim-path"]) || res.outputs["exit-code"] != "" {
			t.Errorf("outputs %q", res.outputs)
		}
		// A later step of the job, with the PATH the runner makes from GITHUB_PATH.
		cmd := exec.Command("bash", "-c", "command -v whsim && whsim version")
		cmd.Env, cmd.Dir = r.jobEnv(), r.dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), res.outputs["whsim-path"]+"\n") || !strings.Contains(string(out), "whsim v0.0.0-test") {
			t.Errorf("a later step's whsim: %v\n%s", err, out)
		}
		if b, _ := os.ReadFile(files["GITHUB_PATH"]); strings.TrimSpace(string(b)) != filepath.Dir(res.outputs["whsim-path"]) {
			t.Errorf("GITHUB_PATH holds %q", b)
		}
	})

	t.Run("Windows and macOS on ARM64: their archive, unpacked", func(t *testing.T) {
		if _, err := exec.LookPath("unzip"); err != nil {
			t.Skip("unzip is missing: the action unpacks Windows' zip with it")
		}
		for _, tc := range []struct{ os, arch, exe, content string }{
			{"Windows", "X64", "whsim.exe", "whsim for windows/amd64"},
			{"macOS", "ARM64", "whsim", "whsim for darwin/arm64"},
		} {
			r, files := newJob(t, map[string]string{"version": "2.0.0"})
			r.env = append(r.env, "RUNNER_OS="+tc.os, "RUNNER_ARCH="+tc.arch)
			res := r.run(&action)
			if res.code != 0 {
				t.Errorf("%s %s: install failed (%d): %s", tc.os, tc.arch, res.code, res.stderr)
				continue
			}
			p := res.outputs["whsim-path"]
			if b, _ := os.ReadFile(p); filepath.Base(p) != tc.exe || string(b) != tc.content {
				t.Errorf("%s %s: whsim-path %s holds %q, want %s holding %q", tc.os, tc.arch, p, b, tc.exe, tc.content)
			}
			if b, _ := os.ReadFile(files["GITHUB_PATH"]); strings.TrimSpace(string(b)) != filepath.Dir(p) {
				t.Errorf("%s %s: GITHUB_PATH holds %q", tc.os, tc.arch, b)
			}
		}
	})

	t.Run("a tampered archive is refused", func(t *testing.T) {
		r, files := newJob(t, map[string]string{"version": "6.6.6", "args": "version"})
		res := r.run(&action)
		if res.code != 2 || !strings.Contains(res.stderr, "refusing it (a damaged or tampered download)") {
			t.Errorf("exit %d, stderr %q; want 2 and the refusal", res.code, res.stderr)
		}
		// args was given: its exit-code is 2, could not run, as the step's
		// exit; it was empty, which a workflow reading it with
		// continue-on-error could not tell from a pass.
		if b, _ := os.ReadFile(files["GITHUB_PATH"]); len(b) != 0 || res.outputs["whsim-path"] != "" || res.outputs["exit-code"] != "2" {
			t.Errorf("after a refusal: GITHUB_PATH %q, outputs %q; want nothing installed or run, exit-code 2", b, res.outputs)
		}
		if strings.Contains(res.stderr, "owned") {
			t.Errorf("the refused archive's whsim ran: %s", res.stderr)
		}
	})

	t.Run("not installable: exit 2, a reason", func(t *testing.T) {
		for _, tc := range []struct {
			inputs map[string]string
			env    string
			want   string
		}{
			{map[string]string{"version": "9.9.9"}, "", "download " + srv.URL + "/v9.9.9/"},
			{map[string]string{"version": "1.2.3"}, "RUNNER_ARCH=X86", `RUNNER_ARCH "X86"`},
			{map[string]string{"version": "1.2.3;rm"}, "", `input version "1.2.3;rm"`},
			{map[string]string{"version": ".."}, "", `input version ".."`},
			{map[string]string{"version": "v"}, "", `input version is empty`},
		} {
			// With args, the exit-code output is 2 (whsim could not run
			// the test), as the step's exit: it was empty, which a
			// workflow reading it cannot tell from a pass. Without, there
			// is no command and no exit-code.
			for _, args := range []string{"", "check --url http://127.0.0.1:1/hook"} {
				inputs := map[string]string{"args": args}
				maps.Copy(inputs, tc.inputs)
				r, _ := newJob(t, inputs)
				if tc.env != "" {
					r.env = append(r.env, tc.env)
				}
				want := ""
				if args != "" {
					want = "2"
				}
				if res := r.run(&action); res.code != 2 || !strings.Contains(res.stderr, tc.want) || res.outputs["exit-code"] != want {
					t.Errorf("%v %s: exit %d, exit-code %q, stderr %q; want 2, exit-code %q and %q", inputs, tc.env, res.code, res.outputs["exit-code"], res.stderr, want, tc.want)
				}
			}
		}
	})

	// A message is one workflow command: the args it quotes, lines and
	// all, stay in it (%0A), and no line of theirs is read as a command.
	t.Run("args that do not split: one annotation", func(t *testing.T) {
		r, _ := newJob(t, map[string]string{"version": "1.2.3", "args": "validate 'x\n::warning::injected\n"})
		res := r.run(&action)
		if res.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", res.code, res.stderr)
		}
		// The exit-code output says it too: whsim could not run the test
		// (2), where it was left empty, neither a pass nor a failure to a
		// workflow reading it with continue-on-error.
		if res.outputs["exit-code"] != "2" {
			t.Errorf("exit-code output %q, want 2", res.outputs["exit-code"])
		}
		var commands []string
		for _, line := range strings.Split(res.stderr, "\n") {
			if strings.HasPrefix(line, "::") {
				commands = append(commands, line)
			}
		}
		if len(commands) != 1 || !strings.HasPrefix(commands[0], "::error title=whsim action::input args: unbalanced quotes in: validate 'x%0A::warning::injected") {
			t.Errorf("workflow commands %q, want one error holding the args", commands)
		}
	})

	// A working-directory that is not there is the action's input error:
	// exit-code 2, saying so. GitHub's runner failed the step before it
	// started, leaving exit-code empty, which a workflow reading it with
	// continue-on-error cannot tell from a pass.
	t.Run("a working-directory that is not there: exit-code 2", func(t *testing.T) {
		r, _ := newJob(t, map[string]string{"version": "1.2.3", "args": "version", "working-directory": "no-such-dir"})
		res := r.run(&action)
		if res.code != 2 || res.outputs["exit-code"] != "2" || !strings.Contains(res.stderr, `input working-directory "no-such-dir": no such directory`) {
			t.Errorf("exit %d, exit-code %q, stderr %q; want 2, 2 and the input named", res.code, res.outputs["exit-code"], res.stderr)
		}
	})

	t.Run("the command's exit code is passed on", func(t *testing.T) {
		fixture, err := filepath.Abs("../../fixtures/CREATE_RECEIVABLE_DOC.sample.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args string
			code int
		}{
			{"validate '" + fixture + "'", 0},
			{"whsim check --url " + receiver.URL + "/hook --seed 7 --checks accepts-valid,rejects-malformed --junit whsim.xml --report 'reports/whsim check.html'", 1},
			{"validate does-not-exist.json", 2},
			// Nothing is expanded: the words reach whsim as written.
			{"validate $(touch pwned) $HOME", 2},
			// Lines joined by a backslash, as a shell joins them (args: | in
			// the workflow, written like a script).
			{"validate \\\n  '" + fixture + "'", 0},
		} {
			r, files := newJob(t, map[string]string{"version": "1.2.3", "args": tc.args, "working-directory": "reports/.."})
			res := r.run(&action)
			if res.code != tc.code || res.outputs["exit-code"] != fmt.Sprint(tc.code) {
				t.Errorf("args %q: step exit %d, exit-code output %q; want %d\n%s", tc.args, res.code, res.outputs["exit-code"], tc.code, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(r.dir, "pwned")); err == nil {
				t.Errorf("args %q ran a command substitution", tc.args)
			}
			if !strings.HasPrefix(tc.args, "whsim check") {
				continue
			}
			summary, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
			if !strings.Contains(string(summary), "### whsim check: ❌ FAIL") {
				t.Errorf("job summary: %q", summary)
			}
			junit, _ := os.ReadFile(filepath.Join(r.dir, "whsim.xml"))
			if !bytes.Contains(junit, []byte("<testsuites")) || !bytes.Contains(junit, []byte("<failure")) {
				t.Errorf("JUnit in the working directory: %.300q", junit)
			}
			if report, _ := os.ReadFile(filepath.Join(r.dir, "reports", "whsim check.html")); !bytes.Contains(report, []byte("<html")) {
				t.Errorf("report in the working directory: %.300q", report)
			}
		}
	})
}

// TestActionArgsSplitLikeAShell holds the action's args to what it
// promises: split into words as a shell splits them, quotes and
// backslashes and all, with nothing expanded. bash itself, given the same
// text (none of these holds a $ or a `), says what the words are.
func TestActionArgsSplitLikeAShell(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is missing: the action's script needs it")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "argv")
	// The "whsim" the step runs: it writes its arguments, each ended by NUL.
	fake := filepath.Join(dir, "fake-whsim")
	if err := os.WriteFile(fake, []byte("#!/usr/bin/env bash\nprintf '%s\\0' \"$@\" >"+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`check --url http://127.0.0.1:3000/hook --seed 1`,
		`send --header "X-Meta: \"quoted\"" -n 2`,
		`send --header 'X-Meta: "quoted"'`,
		`validate "C:\\data\\a.json" 'C:\data\b.json' C:\\data\\c.json`,
		`validate "a\b" "a\\b" "a\"b" a\ b`,
		`validate 'it'\''s' "" ''`,
		"validate \"two\nlines\" 'and\nthese'",
		"check \\\n  --url http://x/ \\\n  --seed 1\n",
		"check\t--seed\t1  \n\n",
		`validate 'é ü' "日本"`,
	} {
		oracle := exec.Command("bash", "-c", `eval "set -- $1"; printf '%s\0' "$@"`, "bash", args)
		want, err := oracle.Output()
		if err != nil {
			t.Fatalf("bash cannot split %q: %v", args, err)
		}
		out := filepath.Join(dir, "output")
		os.Remove(got)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "../../scripts/action.sh", "run")
		cmd.Env = append(os.Environ(), "WHSIM="+fake, "INPUT_ARGS="+args, "GITHUB_OUTPUT="+out)
		stderr, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("args %q: %v\n%s", args, err, stderr)
			continue
		}
		if b, _ := os.ReadFile(got); !bytes.Equal(b, want) {
			t.Errorf("args %q: words %q, want %q (as bash splits them)", args, strings.Split(string(b), "\x00"), strings.Split(string(want), "\x00"))
		}
	}
	// What a shell cannot split either is refused, as before.
	for _, args := range []string{`validate "open`, `validate 'open`, `validate "a\"`} {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "../../scripts/action.sh", "run")
		cmd.Env = append(os.Environ(), "WHSIM="+fake, "INPUT_ARGS="+args, "GITHUB_OUTPUT="+filepath.Join(dir, "output"))
		stderr, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(stderr), "unbalanced quotes") {
			t.Errorf("args %q: %v, %s; want exit 2 and unbalanced quotes", args, err, stderr)
		}
	}
}

// The exit-code output's description in action.yml, and its row in
// docs/ci.md, name every code of README's exit-code table: they listed
// 0, 1, 2 and 130, not listen's 141, which the output then holds.
func TestActionExitCodesAsTheREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Exit codes\n")
	if !ok {
		t.Fatal("README.md has no Exit codes section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	codes := regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1)
	if len(codes) < 4 {
		t.Fatalf("README's exit-code table: %d codes found", len(codes))
	}
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action actionYAML
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `exit-code` \\|.*$").Find(ci)
	for name, text := range map[string]string{"action.yml exit-code": action.Outputs["exit-code"].Description, "docs/ci.md exit-code row": string(row)} {
		if text == "" {
			t.Errorf("%s: not found", name)
		}
		for _, c := range codes {
			if !regexp.MustCompile(`\b` + c[1] + `\b`).MatchString(text) {
				t.Errorf("%s does not name exit code %s:\n%s", name, c[1], text)
			}
		}
	}
}

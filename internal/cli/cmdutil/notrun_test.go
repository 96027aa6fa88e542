package cmdutil

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// readUnreached finds the flags a refused flag kept cobra from reading,
// and only where the command line plainly gives them.
func TestReadUnreached(t *testing.T) {
	cases := []struct {
		name string
		args []string
		// parsed is what the command's own parse set before it stopped.
		parsed     map[string]string
		junit, rep string
		file       string
	}{
		{"after the refused flag", []string{"check", "--bogus", "--junit", "j.xml", "--report=r.html"}, nil, "j.xml", "r.html", ""},
		{"an unknown flag's value stepped over", []string{"check", "--bogus", "x", "--junit", "j.xml"}, nil, "j.xml", "", ""},
		{"a shorthand", []string{"send", "--count", "abc", "-f", "body.json"}, nil, "", "", "body.json"},
		{"parsed before it: kept", []string{"check", "--junit", "a.xml", "--bogus", "--junit", "b.xml"}, map[string]string{"junit": "a.xml"}, "a.xml", "", ""},
		{"no value: none", []string{"check", "--bogus", "--junit"}, nil, "", "", ""},
		{"after --: none", []string{"check", "--bogus", "--", "--junit", "j.xml"}, nil, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("cmd", pflag.ContinueOnError)
			junit, rep := fs.String("junit", "", ""), fs.String("report", "", "")
			file := fs.StringP("file", "f", "", "")
			fs.Int("count", 0, "")
			for k, v := range tc.parsed {
				if err := fs.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			readUnreached(fs, tc.args, []string{"junit", "report", "file"})
			if *junit != tc.junit || *rep != tc.rep || *file != tc.file {
				t.Errorf("junit %q, report %q, file %q; want %q, %q, %q", *junit, *rep, *file, tc.junit, tc.rep, tc.file)
			}
		})
	}
}

// wordsBut leaves out the flags named and their values, whatever their
// form, and keeps every other word: each may be a file the run reads.
func TestWordsBut(t *testing.T) {
	fs := pflag.NewFlagSet("cmd", pflag.ContinueOnError)
	fs.String("junit", "", "")
	fs.StringP("file", "f", "", "")
	fs.Bool("strict", false, "")
	for _, tc := range []struct {
		args, want []string
	}{
		{[]string{"validate", "--strict", "a.json", "--junit", "a.json", "--bogus"}, []string{"validate", "--strict", "a.json", "--bogus"}},
		{[]string{"send", "--junit=j.xml", "-f", "b.json", "-fc.json", "x"}, []string{"send", "-fc.json", "x"}},
		{[]string{"replay", "--", "--junit", "c.ndjson"}, []string{"replay", "--junit", "c.ndjson"}},
		{[]string{"replay", "--junit"}, []string{"replay"}},
	} {
		if got := wordsBut(fs, tc.args, []string{"junit", "file"}); !slices.Equal(got, tc.want) {
			t.Errorf("wordsBut(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

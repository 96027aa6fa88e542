// Command santhosh is the santhosh-tekuri/jsonschema baseline of the validate
// benchmark: it parses each NDJSON line and validates it against the schema
// file whsim schema exported, and prints payloads per second.
package main

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: santhosh <schema.json> <payloads.ndjson>")
		os.Exit(2)
	}
	sb, err := os.ReadFile(os.Args[1])
	check(err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sb))
	check(err)
	c := jsonschema.NewCompiler()
	check(c.AddResource("schema.json", doc))
	sch, err := c.Compile("schema.json")
	check(err)
	data, err := os.ReadFile(os.Args[2])
	check(err)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	run := func() (int, int) {
		bad := 0
		for _, l := range lines {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(l))
			if err != nil || sch.Validate(inst) != nil {
				bad++
			}
		}
		return len(lines), bad
	}
	run() // warm up
	start := time.Now()
	n, bad := run()
	d := time.Since(start)
	fmt.Printf("%.0f %d\n", float64(n)/d.Seconds(), bad)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Command startcmp times two commands as whole processes, interleaved so
// that machine drift hits both alike, and prints their median wall times
// and ratio: startcmp -n 200 -- 'whsim --version' -- 'hello'.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 200, "runs of each command")
	flag.Parse()
	args := flag.Args()
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: startcmp [-n runs] 'command A' 'command B'")
		os.Exit(2)
	}
	a, b := strings.Fields(args[0]), strings.Fields(args[1])
	run := func(c []string) time.Duration {
		t := time.Now()
		if err := exec.Command(c[0], c[1:]...).Run(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c[0], err)
			os.Exit(1)
		}
		return time.Since(t)
	}
	for range 3 {
		run(a)
		run(b)
	}
	var ta, tb []time.Duration
	for range *n {
		ta = append(ta, run(a))
		tb = append(tb, run(b))
	}
	ma, mb := median(ta), median(tb)
	fmt.Printf("runs: %d each, interleaved\n", *n)
	fmt.Printf("A %-30s median %6.2f ms\n", args[0], float64(ma)/1e6)
	fmt.Printf("B %-30s median %6.2f ms\n", args[1], float64(mb)/1e6)
	fmt.Printf("A/B %.2fx\n", float64(ma)/float64(mb))
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

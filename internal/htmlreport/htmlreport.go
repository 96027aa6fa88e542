// Package htmlreport writes a run as one self-contained HTML file: the page
// (page.html, embedded) with the run's data as embedded JSON, drawn by the
// page's own script into tables and SVG charts. Nothing is fetched: the
// file opens from a CI artifact with no network, and its Content-Security-
// Policy forbids any request. The page follows the reader's light or dark
// preference.
//
// The charts are SVG that the page draws itself rather than a charting
// library: a scatter plot and a histogram are a few dozen lines, they
// inherit the page's colours for both schemes, and an embedded library
// (hundreds of kilobytes, pinned and updated by hand) would be most of
// every report's size.
package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"time"
)

//go:embed page.html
var page []byte

// dataMarker is where the page takes its data; titleMarker its title.
var (
	dataMarker  = []byte("/*WHSIM_REPORT_DATA*/null")
	titleMarker = []byte("<title>whsim report</title>")
)

// Meta says which run a report is of.
type Meta struct {
	Title   string    `json:"title"`   // "whsim check", "whsim send"
	Target  string    `json:"target"`  // the receiver, credentials redacted
	Version string    `json:"version"` // whsim's
	Started time.Time `json:"started"`
	// Command is the command line that reproduces the run, where known.
	Command string `json:"command,omitempty"`
	// SetFirst says which variables the report's commands read the run's
	// credentials from ("set TOKEN and AUTHORIZATION first: ..."), "" for
	// none: unset, a pasted command sends them empty.
	SetFirst string `json:"setFirst,omitempty"`
}

// document is the page's data.
type document struct {
	Kind  string `json:"kind"`
	Meta  Meta   `json:"meta"`
	Check *Check `json:"check,omitempty"`
	Send  *send  `json:"send,omitempty"`
	// NotRun is a run that ended before it could report.
	NotRun *notRun `json:"notRun,omitempty"`
}

// notRun is the data of the report of a run that ended before it could
// report: its verdict ("incomplete" or "interrupted", never a pass) and
// why.
type notRun struct {
	Verdict  string `json:"verdict"`
	Headline string `json:"headline"`
}

// WriteCheck writes the report of a check run.
func WriteCheck(w io.Writer, m Meta, c *Check) error {
	return write(w, document{Kind: "check", Meta: m, Check: c})
}

// WriteSend writes the report of a send run.
func WriteSend(w io.Writer, m Meta, s *send) error {
	return write(w, document{Kind: "send", Meta: m, Send: s})
}

// WriteNotRun writes the report of a run that ended before it could write
// its own (a flag refused, a --duration over before the first call,
// Ctrl-C before any result): the file the flag names then says this run
// had no verdict and why, rather than an earlier run's report standing
// as this one's. interrupted says Ctrl-C or SIGTERM ended it.
func WriteNotRun(w io.Writer, m Meta, interrupted bool, why string) error {
	n := &notRun{Verdict: "incomplete", Headline: "the run did not complete: " + why}
	if interrupted {
		n.Verdict = "interrupted"
	}
	return write(w, document{Kind: "notrun", Meta: m, NotRun: n})
}

func write(w io.Writer, d document) error {
	// json.Marshal escapes <, > and & inside strings, so no value can end
	// the script element the data sits in or start markup.
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if bytes.Count(page, dataMarker) != 1 {
		return fmt.Errorf("report: the page has no data marker")
	}
	out := bytes.Replace(page, dataMarker, data, 1)
	out = bytes.Replace(out, titleMarker, []byte("<title>"+html.EscapeString(d.Meta.Title)+"</title>"), 1)
	_, err = w.Write(out)
	return err
}

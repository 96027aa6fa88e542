package spec

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// eventJSON is the stable JSON form of an event (whsim events --output
// json): a field added is fine, a field renamed or removed breaks scripts.
type eventJSON struct {
	Name         string `json:"name"`
	Number       int    `json:"number"`
	SampleNumber int    `json:"sampleNumber"`
	Numbers      []int  `json:"numbers"`
	Payload      string `json:"payload"`
	Meaning      string `json:"meaning"`
}

// WriteEventsJSON writes events as one indented JSON array.
func WriteEventsJSON(w io.Writer, events []Event) error {
	list := make([]eventJSON, len(events))
	for i, e := range events {
		list[i] = eventJSON{e.Name, e.Number, e.SampleNumber, e.Numbers(), string(e.Kind), e.Meaning}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

// WriteEventsTable writes events as a table for people: a header line, then
// an event a line with its body number(s), payload kind and meaning.
func WriteEventsTable(w io.Writer, events []Event) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tNUMBER\tPAYLOAD\tMEANING")
	for _, e := range events {
		nums := make([]string, len(e.Numbers()))
		for i, n := range e.Numbers() {
			nums[i] = strconv.Itoa(n)
		}
		number := strings.Join(nums, ", ")
		if e.SampleNumber != e.Number {
			number = fmt.Sprintf("%d (samples: %d)", e.Number, e.SampleNumber)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, number, e.Kind, e.Meaning)
	}
	return tw.Flush()
}

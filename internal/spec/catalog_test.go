package spec

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The JSON form is a promise to scripts: these keys, these values.
func TestWriteEventsJSONIsStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []Event
		want   string
	}{
		{name: "none", events: []Event{}, want: "[]\n"},
		{name: "an invoice event with its sample number", events: events[:1], want: `[
  {
    "name": "CREATE_PURCHASE_ORDER_INVOICE",
    "number": 4010,
    "sampleNumber": 4000,
    "numbers": [
      4010,
      4000
    ],
    "payload": "purchase invoice",
    "meaning": "A purchase invoice was created"
  }
]
`},
		{name: "a receipt event, one number", events: events[3:], want: `[
  {
    "name": "ABANDON_RECEIVABLE_DOC",
    "number": 5009,
    "sampleNumber": 5009,
    "numbers": [
      5009
    ],
    "payload": "receipt document",
    "meaning": "A receipt document was voided"
  }
]
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteEventsJSON(&buf, tt.events); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}

	var buf bytes.Buffer
	if err := WriteEventsJSON(&buf, Events()); err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &all); err != nil || len(all) != len(Events()) {
		t.Errorf("every event: %d entries (%v), want %d", len(all), err, len(Events()))
	}
}

func TestWriteEventsTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []Event
		want   string
	}{
		{name: "header only", events: nil, want: "EVENT  NUMBER  PAYLOAD  MEANING\n"},
		{name: "sample numbers are named, columns aligned", events: []Event{events[1], events[2]}, want: "" +
			"EVENT                         NUMBER                PAYLOAD           MEANING\n" +
			"AUDIT_PURCHASE_ORDER_INVOICE  4011 (samples: 4000)  purchase invoice  A purchase invoice was audited (approved or rejected)\n" +
			"CREATE_RECEIVABLE_DOC         5007                  receipt document  A receipt document was created\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteEventsTable(&buf, tt.events); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", buf.String(), tt.want)
			}
		})
	}
}

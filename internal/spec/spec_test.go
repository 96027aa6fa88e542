package spec

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      []string
		want    []string
		wantErr bool
	}{
		{in: []string{"all"}, want: EventNames()},
		{in: []string{"CREATE_RECEIVABLE_DOC", "all"}, want: []string{"CREATE_RECEIVABLE_DOC", "CREATE_PURCHASE_ORDER_INVOICE", "AUDIT_PURCHASE_ORDER_INVOICE", "ABANDON_RECEIVABLE_DOC"}},
		{in: []string{"ABANDON_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"}, want: []string{"ABANDON_RECEIVABLE_DOC"}},
		{in: []string{"create_receivable_doc"}, want: []string{"CREATE_RECEIVABLE_DOC"}}, // typed names ignore case
		{in: []string{"NOPE"}, wantErr: true},
		{in: nil, want: nil},
	}
	for _, tt := range tests {
		got, err := ParseEvents(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseEvents(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		var names []string
		for _, e := range got {
			names = append(names, e.Name)
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("ParseEvents(%q) = %q, want %q", tt.in, names, tt.want)
		}
		var ue *unknownEventError
		if tt.wantErr && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "ABANDON_RECEIVABLE_DOC")) {
			t.Errorf("ParseEvents(%q) error %q does not list the valid events", tt.in, err)
		}
	}
}

func TestEventsForNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want []string
	}{
		{4000, []string{"CREATE_PURCHASE_ORDER_INVOICE", "AUDIT_PURCHASE_ORDER_INVOICE"}},
		{4010, []string{"CREATE_PURCHASE_ORDER_INVOICE"}},
		{4011, []string{"AUDIT_PURCHASE_ORDER_INVOICE"}},
		{5007, []string{"CREATE_RECEIVABLE_DOC"}},
		{5009, []string{"ABANDON_RECEIVABLE_DOC"}},
		{5008, nil},
		{0, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range EventsForNumber(tt.n) {
			got = append(got, e.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("EventsForNumber(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := BodyNumbers(); !slices.Equal(got, []int{4000, 4010, 4011, 5007, 5009}) {
		t.Errorf("BodyNumbers() = %v", got)
	}
}

func TestShapesDiffer(t *testing.T) {
	t.Parallel()
	names := func(f Field) []string {
		var out []string
		for _, m := range f.Fields {
			out = append(out, m.Name)
		}
		return out
	}
	desc, samp := Data(Invoice, Described), Data(Invoice, Sample)
	for _, n := range []string{"invoiceType", "invoiceCode", "applicationCode", "applicationName", "createType", "createTime", "items", "customerCode", "customerName"} {
		if !slices.Contains(names(desc), n) || slices.Contains(names(samp), n) {
			t.Errorf("%s: want it in the described invoice only", n)
		}
	}
	for _, n := range []string{"records", "enterpriseCode", "enterpriseName"} {
		if slices.Contains(names(desc), n) || !slices.Contains(names(samp), n) {
			t.Errorf("%s: want it in the sample invoice only", n)
		}
	}
	st, _ := samp.Member(FieldStatus)
	if st.Type != Integer {
		t.Errorf("sample status is %s, want integer", st.Type)
	}
	// The hidden receipt fields are in the sample shape only.
	hiddenIn := func(f Field) (n int) {
		var walk func(Field)
		walk = func(f Field) {
			for _, m := range f.Fields {
				if m.Hidden {
					n++
				}
				walk(m)
			}
		}
		walk(f)
		return n
	}
	if got := hiddenIn(Data(Receipt, Sample)); got != 4 {
		t.Errorf("sample receipt has %d hidden fields, want 4", got)
	}
	if got := hiddenIn(Data(Receipt, Described)); got != 0 {
		t.Errorf("described receipt has %d hidden fields, want 0", got)
	}
}

// specCopy is the repository's copy of the interface document, so that the
// model is checked against it in every clone; sharedSpec is the document
// itself, beside the repository in the project's own checkout.
const (
	specCopy   = "testdata/spec.md"
	sharedSpec = "../../../shared/spec.md"
)

// TestSpecCopyIsCurrent holds testdata/spec.md to shared/spec.md where the
// latter exists, so that the copy the model is tested against stays the
// document's current text.
func TestSpecCopyIsCurrent(t *testing.T) {
	t.Parallel()
	shared, err := os.ReadFile(sharedSpec)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is not beside this checkout (only the project's own workspace has it): %v", sharedSpec, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	local, err := os.ReadFile(specCopy)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(local, shared) {
		t.Errorf("%s differs from %s: copy the document over (cp %s %s) and update the model if its tables changed",
			specCopy, sharedSpec, sharedSpec, specCopy)
	}
}

// TestModelMatchesSpecDocument reads the field tables of the spec document
// and checks that the model has the same fields with the same JSON types,
// so the two cannot drift apart.
func TestModelMatchesSpecDocument(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(specCopy)
	if err != nil {
		t.Fatal(err)
	}
	tables := specTables(string(doc))
	sampleReceipt := Data(Receipt, Sample)
	header, _ := sampleReceipt.Member(ReceiptHeader)
	lines, _ := sampleReceipt.Member(ReceiptLines)
	sources, _ := sampleReceipt.Member(ReceiptSources)
	items, _ := Data(Invoice, Described).Member(FieldItems)
	for heading, model := range map[string]Field{
		"Field description of `data`:":         Data(Invoice, Described),
		"Item (element of `items`):":           items,
		"Receipt header (收款单):":                header,
		"Receipt detail line (收款明细 element):":  lines,
		"Source-document line (源单明细 element):": sources,
	} {
		rows := tables[heading]
		if len(rows) == 0 {
			t.Errorf("spec.md has no table under %q", heading)
			continue
		}
		var want []string
		for _, r := range rows {
			want = append(want, r.name)
			f, ok := model.Member(r.name)
			if !ok {
				t.Errorf("%s: model lacks %s", heading, r.name)
				continue
			}
			if got := docType(f); !strings.HasPrefix(r.typ, got) {
				t.Errorf("%s %s: model type %s, spec %q", heading, r.name, got, r.typ)
			}
			if r.hidden != f.Hidden {
				t.Errorf("%s %s: model hidden %v, spec %v", heading, r.name, f.Hidden, r.hidden)
			}
		}
		var got []string
		for _, f := range model.Fields {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: model fields %q, spec %q", heading, got, want)
		}
	}
}

// docType is how spec.md writes a field's type.
func docType(f Field) string {
	switch {
	case f.Type == Object && len(f.Fields) == 2 && f.Fields[1].Name == "field_7bf2h":
		return "currency object"
	case f.Type == Object && len(f.Fields) == 2 && f.Fields[1].Name == "name":
		return "customer object"
	case f.Type == Array:
		return "array"
	case f.Type == Object:
		return "object"
	case f.Format == UUID:
		return "string (UUID)"
	case len(f.Values) > 0 && f.Closed && f.Type == String:
		return "string (enum)"
	}
	return string(f.Type)
}

type specRow struct {
	name, typ string
	hidden    bool
}

// specTables returns the rows of each markdown table under the line that
// introduces it.
func specTables(doc string) map[string][]specRow {
	out := map[string][]specRow{}
	var heading string
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			if line != "" {
				heading = line
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 3 || cells[0] == "Field" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		out[heading] = append(out[heading], specRow{
			name:   cells[0],
			typ:    cells[1],
			hidden: strings.Contains(cells[2], "only"),
		})
	}
	return out
}

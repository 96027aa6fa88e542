package receiver

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRespond(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    sequence
		wantErr string
	}{
		{"AUDIT_PURCHASE_ORDER_INVOICE=500,500,200", sequence{ev, []int{500, 500, 200}}, ""},
		{" CREATE_RECEIVABLE_DOC = 204 ", sequence{"CREATE_RECEIVABLE_DOC", []int{204}}, ""},
		{"CREATE_RECEIVABLE_DOC=500, 200", sequence{"CREATE_RECEIVABLE_DOC", []int{500, 200}}, ""},
		{"CREATE_RECEIVABLE_DOC=200,599", sequence{"CREATE_RECEIVABLE_DOC", []int{200, 599}}, ""}, // both bounds are codes
		{"CREATE_RECEIVABLE_DOC", sequence{}, "want EVENT=code"},
		{"=500", sequence{}, "want EVENT=code"},
		{"CREATE_RECEIVABLE_DOC=", sequence{}, "want EVENT=code"},
		{"NOPE=500", sequence{}, `unknown event "NOPE" (valid: CREATE_PURCHASE_ORDER_INVOICE`},
		{"CREATE_RECEIVABLE_DO=500", sequence{}, `unknown event "CREATE_RECEIVABLE_DO" (did you mean "CREATE_RECEIVABLE_DOC"?)`},
		{"CREATE_RECEIVABLE_DOC=500,,200", sequence{}, "code 2"},
		{"CREATE_RECEIVABLE_DOC=199", sequence{}, `"199" is not a status code from 200 to 599`},
		{"CREATE_RECEIVABLE_DOC=600", sequence{}, "not a status code"},
		{"CREATE_RECEIVABLE_DOC=2oo", sequence{}, "not a status code"},
	}
	for _, tt := range tests {
		got, err := parseRespond(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRespond(%q) error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Event != tt.want.Event || !slices.Equal(got.Codes, tt.want.Codes) {
			t.Errorf("ParseRespond(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1024", 1024}, {"1", 1}, {"10B", 10}, {"512KiB", 512 << 10}, {"10MiB", 10 << 20},
		{"10mib", 10 << 20}, {"10MB", 10_000_000}, {"1kb", 1000}, {"1GiB", 1 << 30},
		{"1.5MiB", 3 << 19}, {" 2 KiB ", 2048},
		{"", 0}, {"0", 0}, {"-1", 0}, {"KiB", 0}, {"10XB", 0}, {"2GiB", 0}, {"1e3", 0},
		{"inf", 0}, {"NaN", 0}, {"0x10", 0}, {"10 MiBs", 0}, {"0.1", 0}, {"+5", 0},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if tt.want == 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"10MiB", "512KiB", "1.5GB", "0", "1e400", ".", "9999999999999GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err == nil && (n < 1 || n > maxSize) {
			t.Fatalf("ParseSize(%q) = %d, outside 1..MaxSize", s, n)
		}
		if err != nil && !strings.Contains(err.Error(), "size") {
			t.Fatalf("error %q does not say what was wrong", err)
		}
	})
}

func FuzzParseRespond(f *testing.F) {
	for _, s := range []string{"AUDIT_PURCHASE_ORDER_INVOICE=500,500,200", "X=1", "=", ",,", "CREATE_RECEIVABLE_DOC=200,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seq, err := parseRespond(s)
		if err != nil {
			return
		}
		if len(seq.Codes) == 0 {
			t.Fatalf("ParseRespond(%q): no codes and no error", s)
		}
		for _, c := range seq.Codes {
			if c < 200 || c > 599 {
				t.Fatalf("ParseRespond(%q): code %d", s, c)
			}
		}
	})
}

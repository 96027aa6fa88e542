package spec

import "testing"

func TestPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{nil, ""},
		{[]string{FieldData}, "data"},
		{[]string{FieldData, FieldItems, "0", FieldComments}, "data.items.0.comments"},
		{[]string{FieldData, FieldCode}, "data.code"},
	} {
		if got := Path(c.parts...); got != c.want {
			t.Errorf("Path(%q) = %q, want %q", c.parts, got, c.want)
		}
	}
}

package export

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/termsafe"
)

func TestCredentials(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		url    string
		header http.Header
		want   []string
	}{
		{"http://127.0.0.1:9/hook?businessType=CREATE_RECEIVABLE_DOC", http.Header{"Content-Type": {"application/json"}}, nil},
		{"http://127.0.0.1:9/hook?tenant=7&businessType=X", http.Header{"X-Env": {"test"}}, nil},
		{"http://u:p%40ss@127.0.0.1:9/hook?token=abc&businessType=X", http.Header{"Authorization": {"Bearer t"}, "X-Api-Key": {"k"}, "Content-Type": {"application/json"}},
			[]string{"-H Authorization", "-H X-Api-Key", "the URL's user and password", "?token="}},
		// A user alone is often a token, and goes out as Basic auth.
		{"https://TOKEN@example.com/hook?businessType=X", nil, []string{"the URL's user"}},
		{"http://127.0.0.1:9/hook?api_key=1&sig=2&token=&businessType=X", nil, []string{"?api_key=", "?sig="}},
		{"http://127.0.0.1:9/hook?token=a&token=b&businessType=X", nil, []string{"?token="}},
	} {
		got := Credentials([]Call{{URL: tt.url, Header: tt.header}})
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %v: got %q, want %q", tt.url, tt.header, got, tt.want)
		}
	}
	if got := Credentials(nil); got != nil {
		t.Errorf("no calls: got %q", got)
	}
}

// The data file holds every call's URL and headers as they go: the
// commands printed put it into a ConfigMap, which whoever may read the
// namespace's ConfigMaps reads. The credentials in it were put there
// with no word said; the usage and the manifest's comment now name them
// (never their values).
func TestK6SaysTheConfigMapHoldsCredentials(t *testing.T) {
	t.Parallel()
	ko := k6Options{DataFile: "data.json", Calls: 2, Reach: Reach{Timeout: time.Second}}
	tr := testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 2,
		Credentials: strings.Join(Credentials([]Call{{URL: "http://u:pw@127.0.0.1:9/hook?token=abc", Header: http.Header{"Authorization": {"Bearer sekrit"}}}}), ", ")}
	var usage, manifest bytes.Buffer
	if err := K6Usage(&usage, "k6", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	if err := k6TestRun(&manifest, tr); err != nil {
		t.Fatal(err)
	}
	const what = "holds -H Authorization, the URL's user and password, ?token= in clear, which the ConfigMap shows to whoever may read ConfigMaps in its namespace (it is no Secret)."
	if want := "  kubectl apply -f k6/testrun.yaml\nwarning: k6/data.json " + what + "\n"; !strings.HasSuffix(usage.String(), want) {
		t.Errorf("usage ends\n%s\nwant it to end %q", usage.String(), want)
	}
	if want := "#   kubectl apply -f testrun.yaml\n# warning: data.json " + what + "\n"; !strings.Contains(manifest.String(), want) {
		t.Errorf("manifest\n%s\nlacks %q", manifest.String(), want)
	}
	for _, s := range []string{usage.String(), manifest.String()} {
		if strings.Contains(s, "sekrit") || strings.Contains(s, "abc") || strings.Contains(s, "pw") {
			t.Errorf("a credential's value in\n%s", s)
		}
	}

	// None held, none said; and no ConfigMap (over its 1 MiB), no warning
	// about one.
	usage.Reset()
	if err := K6Usage(&usage, "k6", "testrun.yaml", ko, testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 2}); err != nil {
		t.Fatal(err)
	}
	over := tr
	over.ConfigMapBytes = 2 << 20
	if err := K6Usage(&usage, "k6", "testrun.yaml", ko, over); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(usage.String(), "in clear") {
		t.Errorf("a warning without a ConfigMap holding credentials:\n%s", usage.String())
	}
}

// Whatever the URL and header name, Credentials never panics and says
// nothing a terminal would act on: it names what the calls carry from
// the command line, which a pasted URL can make anything.
func FuzzCredentials(f *testing.F) {
	f.Add("http://u:pw@127.0.0.1:9/hook?token=abc&businessType=X", "Authorization")
	f.Add("https://TOKEN@example.com/%zz?%ff=1&sig=\x1b[2J", "X-Api-Key\u202e")
	f.Fuzz(func(t *testing.T, u, name string) {
		for _, w := range Credentials([]Call{{URL: u, Header: http.Header{name: {"v"}}}}) {
			if !termsafe.Safe(w) {
				t.Errorf("%q: names %q", u, w)
			}
		}
	})
}

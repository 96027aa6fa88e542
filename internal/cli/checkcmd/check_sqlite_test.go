package checkcmd_test

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // a pure-Go driver: the receiver under test, not whsim, needs it

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/spec"
)

// sqliteReceiver stores documents into a SQLite file the way a user's
// receiver would: one row per document, re-deliveries recognised by their
// requestId, a void or audit of an unknown document kept as a stub the
// create fills in. neverVoids answers 200 to a void and does nothing.
type sqliteReceiver struct {
	db         *sql.DB
	neverVoids bool
}

const sqliteSchema = `
pragma journal_mode = wal;
create table docs (kind text not null, code text not null, state text not null, lines integer, primary key (kind, code));
create table seen (request_id text primary key);`

func newSQLiteReceiver(t *testing.T, path string, neverVoids bool) *sqliteReceiver {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one writer: SQLite's own rule
	if _, err := db.Exec(sqliteSchema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &sqliteReceiver{db: db, neverVoids: neverVoids}
}

func (s *sqliteReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e, ok := spec.Lookup(r.URL.Query().Get("businessType"))
	var env struct {
		RequestID string         `json:"requestId"`
		Data      map[string]any `json:"data"`
	}
	if !ok || json.Unmarshal(body, &env) != nil || env.Data == nil {
		http.Error(w, "bad call", http.StatusBadRequest)
		return
	}
	kind, code, lines := probe.KindWord(e.Kind), "", 0
	if e.Kind == spec.Receipt {
		hdr, _ := env.Data[spec.ReceiptHeader].(map[string]any)
		code, _ = hdr["收款单编号"].(string)
		l, _ := env.Data[spec.ReceiptLines].([]any)
		lines = len(l)
	} else {
		code, _ = env.Data["code"].(string)
		l, _ := env.Data[spec.FieldItems].([]any)
		if rec, ok := env.Data[spec.FieldRecords].([]any); ok {
			l = rec
		}
		lines = len(l)
	}
	state := probe.StateCreated
	switch e.Name {
	case "AUDIT_PURCHASE_ORDER_INVOICE":
		state = probe.StateAudited
	case "ABANDON_RECEIVABLE_DOC":
		state = probe.StateVoided
	}
	tx, err := s.db.Begin()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer tx.Rollback()
	res, err := tx.Exec(`insert or ignore into seen (request_id) values (?)`, env.RequestID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if n, _ := res.RowsAffected(); n == 1 {
		switch {
		case state == probe.StateCreated:
			// A create never takes back the state an early audit or void set.
			_, err = tx.Exec(`insert into docs (kind, code, state, lines) values (?, ?, ?, ?)
				on conflict (kind, code) do update set lines = excluded.lines`, kind, code, state, lines)
		case state == probe.StateVoided && s.neverVoids:
		default:
			_, err = tx.Exec(`insert into docs (kind, code, state, lines) values (?, ?, ?, ?)
				on conflict (kind, code) do update set state = excluded.state`, kind, code, state, lines)
		}
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// TestCheckProbeSQLite: a receiver storing into SQLite, and --probe-cmd
// asking Debian's sqlite3 client about the same file, as a user points
// whsim at the receiver's real database.
func TestCheckProbeSQLite(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("the sqlite3 client is not installed (scripts/install-tools.sh sqlite3)")
	}
	for _, tt := range []struct {
		name       string
		neverVoids bool
		code       int
	}{{"careful", false, 0}, {"never voids", true, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "app.db")
			srv := httptest.NewServer(newSQLiteReceiver(t, path, tt.neverVoids))
			defer srv.Close()
			probe := `sqlite3 -cmd '.timeout 5000' -json ` + shellQuoteTest(path) +
				` "select count(*) as count, max(state) as state, max(lines) as lines from docs where kind = '$WHSIM_KIND' and code = '$WHSIM_CODE'"`
			code, out, errOut := clitest.Run(t, "check", "--url", srv.URL, "--checks", "duplicates,load,effects", "--load-count", "100", "--probe-cmd", probe)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, "effects: 70 documents probed (every one of the 50 load documents answered 2xx)") {
				t.Errorf("no effects figures in:\n%s", out)
			}
			if tt.code == 0 {
				return
			}
			for _, want := range []string{
				"FAIL effects lifecycle/ABANDON_RECEIVABLE_DOC/after-create: receipt SKD-",
				"the void was acknowledged and never applied",
				`the probe answered [{"count":1,"state":"created","lines":`,
				"WHSIM_KIND='receipt' WHSIM_CODE='SKD-",
				"effects +[0-9]+ +0 +[0-9]+  FAILED",
			} {
				if !strings.Contains(out, want) && !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func shellQuoteTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

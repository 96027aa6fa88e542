package whsimtest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"

	"github.com/whsim/whsim/whsimtest"
)

// receiver stores each document in SQLite, once per document number: the
// table's key makes re-deliveries and copies arriving together one row,
// whether they share a requestId or the ERP sent the document again under
// a new one (requestId has no business meaning, so it is no key), and an
// audit or void that comes before its create leaves the row the create
// then completes.
type receiver struct{ db *sql.DB }

const schema = `CREATE TABLE documents (
	kind  TEXT NOT NULL,
	code  TEXT NOT NULL,
	state TEXT NOT NULL,
	lines INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (kind, code)
)`

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	var env struct {
		Data struct {
			Code    string            `json:"code"`
			Items   []json.RawMessage `json:"items"`
			Records []json.RawMessage `json:"records"`
			Receipt struct {
				Code string `json:"收款单编号"`
			} `json:"收款单"`
			ReceiptLines []json.RawMessage `json:"收款明细"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	d := env.Data
	switch r.URL.Query().Get("businessType") {
	case "CREATE_PURCHASE_ORDER_INVOICE":
		err = rc.create("invoice", d.Code, len(d.Items)+len(d.Records))
	case "AUDIT_PURCHASE_ORDER_INVOICE":
		err = rc.follow("invoice", d.Code, whsimtest.Audited)
	case "CREATE_RECEIVABLE_DOC":
		err = rc.create("receipt", d.Receipt.Code, len(d.ReceiptLines))
	case "ABANDON_RECEIVABLE_DOC":
		err = rc.follow("receipt", d.Receipt.Code, whsimtest.Voided)
	default:
		http.Error(w, "unknown businessType", http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// create stores a document, or completes the row an early follow-up left;
// it never takes back the state an audit or void gave.
func (rc *receiver) create(kind, code string, lines int) error {
	_, err := rc.db.Exec(`INSERT INTO documents (kind, code, state, lines) VALUES (?, ?, 'created', ?)
		ON CONFLICT (kind, code) DO UPDATE SET lines = excluded.lines`, kind, code, lines)
	return err
}

// follow applies an audit or void, to a document held or not yet.
func (rc *receiver) follow(kind, code, state string) error {
	_, err := rc.db.Exec(`INSERT INTO documents (kind, code, state) VALUES (?, ?, ?)
		ON CONFLICT (kind, code) DO UPDATE SET state = excluded.state`, kind, code, state)
	return err
}

// probe reads the receiver's own database: what it holds for d.
func (rc *receiver) probe(ctx context.Context, d whsimtest.Document) (whsimtest.Stored, error) {
	var s whsimtest.Stored
	var state sql.NullString
	var lines sql.NullInt64
	err := rc.db.QueryRowContext(ctx, `SELECT count(*), max(state), max(lines) FROM documents WHERE kind = ? AND code = ?`,
		d.Kind, d.Code).Scan(&s.Count, &state, &lines)
	// lines is NULL where a follow-up came before its create: not
	// counted, as sqlite3 -json's "lines":null is for whsim check.
	s.State, s.Lines, s.LinesNotCounted = state.String, int(lines.Int64), !lines.Valid
	return s, err
}

// A receiver that stores into SQLite, and the probe that reads the same
// database, graded by the checks that judge what it stores. In a test the
// same is one line, each check a subtest:
//
//	whsimtest.Check(t, rc, whsimtest.WithProbe(rc.probe), whsimtest.WithChecks("duplicates", "out-of-order", "effects"))
//
// Without WithChecks the whole battery runs, and fails this receiver where
// it does not check what it is sent: it stores a body of the other kind
// than its event names, and answers 204 to one without data.
func Example_sqlite() {
	dir, err := os.MkdirTemp("", "whsimtest-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	// One connection: SQLite takes one writer at a time, and the copies
	// of a call arriving together wait their turn instead of failing.
	db, err := sql.Open("sqlite", filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		panic(err)
	}
	rc := &receiver{db: db}

	rep, err := whsimtest.Run(context.Background(), rc,
		whsimtest.WithProbe(rc.probe), whsimtest.WithChecks("duplicates", "out-of-order", "effects"), whsimtest.WithSeed(1))
	if err != nil {
		panic(err)
	}
	passed := map[string]int{}
	for _, c := range rep.Cases {
		if c.Verdict != "pass" {
			fmt.Printf("%s %s/%s: %s\n", c.Verdict, c.Check, c.Case, c.Reason)
			continue
		}
		passed[c.Check]++
	}
	fmt.Println("duplicates:", passed["duplicates"], "passed")
	fmt.Println("out-of-order:", passed["out-of-order"], "passed")
	fmt.Println("effects:", passed["effects"], "passed")
	fmt.Println("failed:", rep.Failed())
	// Output:
	// duplicates: 8 passed
	// out-of-order: 4 passed
	// effects: 20 passed
	// failed: false
}

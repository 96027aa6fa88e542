package checkcmd

import (
	"fmt"
	"strings"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/spec"
)

// The help of whsim check, as New gives it to cobra: --help, whsim man
// and docs/reference.md are made from it.

const helpUse = "check --url <url> [--checks <id>,...] [--exclude-checks <id>,...] [--secret <whsec_...>] [--probe <url-template> | --probe-cmd <command>] [--junit <file>] [--save-cases <dir>] [flags]\n  whsim check --rerun <report.json|dir> [--url <url>] [--secret <whsec_...>] [-H <header>]..."

const helpShort = "Grade a receiver: send valid, malformed, repeated, out-of-order and signed calls and judge every answer"

// helpLong is the description: what check does, the battery's checks as
// check lists them, then how a run reports, --rerun, --report, --junit,
// the probe's contract and the exit status.
func helpLong() string { return helpIntro + checkList() + helpDetails }

const helpIntro = `Run a battery of black-box checks against your receiver and say, per case
and per check, whether it behaves the way a webhook receiver must:

`

const helpDetails = `
The signature check runs only with --secret; every call of the run is then
signed (Standard Webhooks). Failing cases print one line each with the
reason, then the warnings, then a table per check, then a command per failure that sends
the same request again (credentials from -H masked: put yours back): curl,
or whsim replay when the call was signed (replay --sign signs it afresh, as
a signature is stale five minutes later; the secret from WHSIM_REPLAY_SECRET)
or saved. A case delivered at once several times is replayed concurrently.

Every failing or warning reason carries the receiver's answer: its status
line and the first 200 bytes of its body. The warnings of one check are one
line with their count; -v lists them and shows the answer's headers too, as
send -v does.

A receiver that stops answering (refused or reset 3 calls in a row, or no
answer within --timeout 2 calls in a row; in the order they were sent, a
late answer of a call sent before them not breaking the row; calls sent
together count their number on top; a call it still holds neither counts
nor keeps the row open, unless it went out while the receiver was still
answering and may yet be answered late, or before any call's failure was
read to a receiver that answered none: an answer to it, however late within
--timeout, would be the receiver's first, so the run waits for it, and says
which calls it waited for) stops the run at once: one line says after
which case it last answered (a case graded on its answer; or how many calls
it answered before any case was graded, as load and effects grade theirs at
their end; or that it answered none) and how many calls in a row got no
answer (with calls held, or calls that got different things: which calls,
numbered in the order sent, got what, and which were still held), and the
checks left are
reported as not run. A call lost on a kept-alive connection the receiver
closed as it went out fails its case, and counts among those calls, but is
no sign of a receiver gone (a new connection gets its answer). So is a call
held unanswered past --timeout on a kept-alive connection while no call on one
was answered and calls on new connections were: the summary says so (the
receiver may answer only a connection's first call), and the run makes its
later calls each on a new connection, so that their cases are judged on their
own. When every call got
the same 404, 405, 401, 403 or redirect the summary says so first, with the
likely cause. On a terminal a progress line on stderr shows the check, the case and
the time taken; Ctrl-C stops the run and says how far it got.

--save-cases DIR writes every case as capture records, DIR/<check>/<case>.ndjson
(one per delivery: method, path, query, headers, body byte for byte), which
whsim replay sends again, and DIR/` + check.ResultsFile + `, the JSON line of each
case and the summary, as --output json ends. --output json carries, for each failing or warning case, its request
(credentials masked), the answer that would pass and the command.

--rerun <report.json|DIR> sends again only the cases that failed, from a
report of --output json or a --save-cases directory, to the report's URL or
--url, with -H to put masked credentials back and --secret for signed ones
(those two need --url: they go to no URL a report names, and so does a
directory whose saved cases keep the run's -H credentials).
A failed effects document is sent again as a fresh one and judged by the
probe (--probe or --probe-cmd again, or the report's --probe URL on the
receiver's host). Each case says FIXED or STILL FAILING (or NOT RERUN for
load and latency, judged over a whole run, for copies sent at once of
which no two were in flight together, and for a 4xx to a call that carried
a credential as the report masks it); exit 0 only when every one is
fixed and the report's run ran every check: a report whose run stopped or
was interrupted before it ran them all (its summary's cutShort and notRun)
exits 1 however its failed cases go, its verdict naming the checks left, as
they are untested (under GitHub Actions its job summary section says so,
per check).
Every call goes to --url or the report's one URL, named on stderr
first; a report that names another URL, more copies than a run sends, a
failed case no check of this whsim has (named in the refusal), or a file
that is not a regular file is refused (exit 2).

--report FILE writes all of it as one HTML file that opens without a network
(a CI artifact); under GitHub Actions ($GITHUB_STEP_SUMMARY set) the verdict,
the table and the first failures are appended to the job summary. A run
that started and ended in exit 2 (the receiver unreachable, the probe at
fault) still writes the report and the job summary, saying why it did not
complete; a usage error, before anything ran, writes the report headed
INCOMPLETE and a job summary headed did not complete, each saying why.

--junit FILE is written on every exit: on a usage error or a receiver that
cannot be reached, one test case in error says why.

With --probe or --probe-cmd, the effects check asks the receiver what it
stored, not only what it answered. The probe's contract (stable):

  --probe <url-template>  a GET per document. {kind} (invoice or receipt),
      {code} (data.code of an invoice, data.` + spec.ReceiptHeader + `.` + spec.FieldReceiptNumber + ` of a receipt),
      {invoiceCode} (a described invoice's invoice number, else empty),
      {event} and {requestId} (of the call that created the document) are
      filled in, escaped for the path or the query. 404 means it holds
      nothing; a redirect is not followed. --probe-header adds headers;
      --timeout and the TLS flags apply.
      A credential in its query or its headers is masked where whsim shows
      it, read from $PROBE_<NAME> in the commands it prints ($PROBE_TOKEN),
      and not kept in a report: --rerun asks for --probe again.
  --probe-cmd <command>  run with sh -c, the same values in WHSIM_KIND,
      WHSIM_CODE, WHSIM_INVOICE_CODE, WHSIM_EVENT and WHSIM_REQUEST_ID; its
      standard output is the answer; --timeout bounds it, and ends it with
      every process it started. whsim's document numbers hold only A-Z,
      0-9 and '-', safe inside SQL quotes. whsim shows the command as
      given, but for a credential written in it (a URL's password,
      PGPASSWORD=..., an Authorization header, curl -u user:pass, mysql
      -pPASS, redis-cli -a PASS), which it masks; the commands it prints
      then read the whole command from "$PROBE_CMD" (they run as printed
      where it is set). Better, read a password from the environment
      (PGPASSWORD, "$DB_URL").
  The answer: a JSON object, or an array holding one (as sqlite3 -json
      prints a row): "count" (required: how many records it holds for the
      document, a JSON number, or its digits alone as a string: "1"),
      "state" (required when count is 1 or more: created, audited or
      voided, as written), "lines" (optional: how many lines it stored,
      the items or records of an invoice, the 收款明细 of a receipt, a
      number as count is). Other members are ignored. Anything else is the
      probe's error, saying what: a count " 1 " or "1e0" (cast it), a
      state "VOIDED" (lower() it), a member given twice, more than 1 MiB.

Before the first case whsim asks about a document that cannot exist and
expects count 0, and again, of each kind, once the run's documents are
probed (a probe that ignores the document it is asked about, a count
without its where clause, answers 0 only on an empty store), an invoice
then also as one of the sample shape, with no invoice number (a probe
finding invoices by {invoiceCode} alone counts all such): a probe that
cannot be reached, times out, exits non-zero, prints something unreadable
or holds a document never sent is the probe's error, said once, exit 2,
and never blamed on the receiver. Documents are probed together at the end
of their sequence; one whose answer does not match yet is asked again with
backoff until --settle runs out (default 2s: a receiver that answers first
and stores from a queue stores within a second or so). When one needed
asking again (the receiver stores after answering), each document of more
than one call is asked once more as --settle runs out and judged on that
answer: a copy or a follow-up stored late counts. When every one matched
when first asked, each of more than one call is still asked once more, as
long after that answer as its calls took and 0.1s more (by then a queue
that held any of them that long has stored them all); --settle 0 asks once. Document numbers,
requestIds and webhook-ids are fresh per run, even with --seed, so that a
receiver keeping earlier runs' documents passes again: --seed fixes the
documents, --fixed-ids the ids too (a byte-exact repeat). Without a probe,
effects is skipped, saying what it would have proved.

--latency-budget defaults to 1s: the spec names no time-out, senders commonly
give up after 5 to 30 seconds, and a receiver should answer first and work
after; one second at p99 leaves room for a cold start while catching one that
processes each document before answering.

Exit status: 0 when no check failed (warnings allowed), 1 when one did, the
receiver stopped answering, or no case could be judged (every one
inconclusive: the run verified nothing) (--rerun: a case still fails, or
the report's run left a check unrun), 2 for usage errors, a receiver that cannot be
reached at all (or answers nothing to the first call within --timeout) or a
probe that fails, 130 when interrupted.`

const helpExample = `  whsim check --url http://localhost:3000/webhook
  whsim check --url http://localhost:3000/webhook --checks accepts-valid,rejects-malformed
  whsim check --url http://localhost:3000/webhook --exclude-checks load,latency --seed 42
  whsim check --url https://hooks.example.com/erp -H 'Authorization: Bearer t0k3n' --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  whsim check --url http://localhost:3000/webhook --junit check.xml --save-cases cases/
  whsim check --url http://localhost:3000/webhook --exclude-cases 'type/*/*' -v
  whsim check --url http://localhost:3000/webhook --seed 42 --fixed-ids
  whsim check --url http://localhost:3000/webhook --probe 'http://localhost:3000/debug/{kind}s/{code}'
  whsim check --url http://localhost:3000/webhook --probe-cmd ./probe.sh --settle 5s
  whsim check --rerun cases/
  whsim check --rerun report.json --url http://localhost:3001/webhook -H 'Authorization: Bearer t0k3n'
  whsim check --url http://localhost:3000/webhook --report check.html
  whsim check --url http://localhost:3000/webhook --output json | jq 'select(.verdict == "fail")'`

// checkList is one line per check of the battery: its id and summary.
func checkList() string {
	var b strings.Builder
	for _, c := range check.Checks() {
		fmt.Fprintf(&b, "  %-23s %s\n", c.ID, c.Summary)
	}
	return b.String()
}

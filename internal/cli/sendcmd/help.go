package sendcmd

import (
	"strings"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/threshold"
)

// The help of whsim send, as New gives it to cobra: --help, whsim man
// and docs/reference.md are made from it.

const helpUse = "send [--url <url>] [--event <name>]... [--file <payload.json>|-] [--count <n>] [--concurrency <n>] [flags]"

const helpShort = "Deliver events to a receiver, one at a time or under load"

// helpLong is the description: what a delivery is, the built-in
// receiver, what a run prints, the load models, --report, --threshold
// with the metrics threshold knows, the environment and the exit status.
func helpLong() string {
	return helpBeforeMetrics + strings.Join(threshold.Names(), ", ") + helpAfterMetrics
}

const helpBeforeMetrics = `Deliver webhook calls the way the ERP does: POST <url>?businessType=<EVENT>
with content-type application/json and the JSON envelope as the body. Any
query the URL already has is kept.

Without --url, whsim starts its own receiver on 127.0.0.1, sends there and
shows what it received (on stderr).

When stdout is not a terminal, or with --each, each delivery prints one line
on stdout (event, requestId, status, latency; an unexpected answer adds the
start of its body); on a terminal, a run of more than one delivery prints
only the failed ones, under a progress bar on stderr (done, percent, rate,
time left, failures). Then a summary: sent (the calls that started),
succeeded, failed by status and by error kind, interrupted (started and cut
short by Ctrl-C), not started (what --count had left when Ctrl-C or
--duration ended the run; with --rate, also each call due before --duration
ended that never started), documents (the distinct documents the calls
carried: of --file, by their numbers, so a document's void or the document
under a new requestId is none; a body that names no document, every number
missing or empty, is none either, and "(N calls carried no document
number)" says how many), duplicates (repeats: --duplicate's, --file's
rounds, a --file payload that is an earlier one's call again), requests per
second, latency p50/p90/p99/p99.9/max, and which load model ran. Retry
notices and warnings go to stderr. --count is documents per event: --event
all --count 100 sends 400, each a document with numbers of its own (an
invoice's code and invoiceCode, a receipt's ` + spec.FieldReceiptNumber + `).

--file sends a file's payloads byte for byte: each line of NDJSON as it
stands (its line break aside; the first line's spaces before its value
too, and a file of one line is one line of NDJSON), a pretty-printed
document and each element of a JSON array without the blank space
(spaces, line breaks) around it, which is no part of a JSON value (a
file's last newline is not sent). A stream (- for stdin from a
pipe or a terminal, a FIFO) is read as it comes: each line is sent once it
arrives, so a relay goes out as it comes, in the memory of one payload
(and the hashes that tell repeats among the last 65,536 calls):

  whsim generate --event all --count 100 | whsim send --file - --url http://localhost:3000/webhook

Its total is not known ahead: no progress percentage, each delivery is
printed even on a terminal, and Ctrl-C counts nothing as not started. A
line that cannot be sent ends the run there, after the summary of those
before it (exit 2). --count
above 1, --duration without --count, --shuffle, --duplicate and --rate need
every payload first: with them the stream is read to its end before the
first call (a stream without end is never sent; --rate would count a line
that has not come yet as the receiver's lateness).

A capture's calls are relayed, each as it comes, by replay, which sends
each under the event its query named: a body alone does not always name
one (a sample-shape invoice's 4000 stands for both invoice events, which
send --file refuses without --event):

  tail -n +1 -f calls.ndjson | whsim replay - --url http://localhost:3000/webhook

--seed fixes the content; each run still gets requestIds and document
numbers of its own, so a deduplicating receiver does not answer a second
run as duplicates. --seed n --fixed-ids repeats both, every run: the
payloads generate --seed n prints (with its --count, up to 256 per event;
more are copies of them), under the requestIds it prints, with document
numbers of the seed's own (each document's serial in their last 8 digits,
so that no two documents of a run share a number), not generate's. To
send generate's bytes as they are, numbers too:

  whsim generate --seed 7 --event CREATE_RECEIVABLE_DOC | whsim send --file - --url http://localhost:3000/webhook

--output json prints one JSON object per delivery and a final
{"summary": ...} object instead, with the latency histogram (HdrHistogram,
base64) so that runs on several machines can be merged.

Without --rate, --concurrency workers each send and wait for the answer
(the closed model: as fast as the receiver answers). With --rate, calls
start on schedule whatever the receiver does, up to --max-concurrency in
flight (the open model, like vegeta or k6's constant-arrival-rate), and
each latency counts from the call's scheduled start, so a receiver that
stalls shows it. In both, no call starts after --duration. In-flight calls
are bounded by the file descriptors too (the soft limit is raised to the
hard one; a lower bound is said once), and a failure of the sending
machine itself is counted as "local", not as the receiver's.

--report writes the run as one HTML file that opens without a network (a CI
artifact): the summary, the percentiles, each call's latency against its
scheduled start (a stall shows as in vegeta's plot), a histogram and the
errors by kind. Under GitHub Actions ($GITHUB_STEP_SUMMARY set) the counts,
latency, thresholds and first failures are appended to the job summary.

--threshold makes the run a gate, as k6's thresholds do: each is a metric
of the summary, a comparison (< <= > >= == !=) and a value (a duration for
latencies, a count or a share of sent for counts, per second for rps),
checked at the end; the summary lists each with its measured value. A run
that did not finish (Ctrl-C) judges none: each reads "not judged
(interrupted after 16 of 200 calls)", never ok.
Metrics: `

const helpAfterMetrics = `.

Environment: WHSIM_TRANSPORT=net/http sends every call through Go's
net/http instead of whsim's faster plain-HTTP path (to rule it out), and
WHSIM_TRANSPORT=goroutines makes a run's calls on that path from a
goroutine per connection instead of event loops (on Linux, a run without
--rate is made by event loops); the flags' WHSIM_* variables are in the
README's Configuration section.

Exit status: 0 when every delivery got an expected status (--expect-status,
default any 2xx), every --threshold held and no kept-alive connection held
bytes after an answer that no call asked for (a receiver that answers a
call twice: its statuses may be other calls'), 1 otherwise (a failed
threshold is named), 2 for usage errors (an unknown metric is one), 130
when interrupted (the summary is still printed).`

const helpExample = `  whsim send --event CREATE_RECEIVABLE_DOC
  whsim send --url http://localhost:3000/webhook --event all
  whsim send --url 'https://erp-hook.example.com/in?tenant=7' --event AUDIT_PURCHASE_ORDER_INVOICE --set data.status=REFUSAL
  whsim send --url http://localhost:3000/webhook --file payload.json --event CREATE_PURCHASE_ORDER_INVOICE
  whsim send --url http://localhost:3000/webhook --scenario invoice-lifecycle --count 100 --shuffle --duplicate 0.1
  whsim send --url http://localhost:3000/webhook --event all --count 50000 --concurrency 32 --output json > results.ndjson
  whsim send --url http://localhost:3000/webhook --event all --rate 200 --duration 1m
  whsim send --url http://localhost:3000/webhook --event all --rate 200 --duration 30s --threshold 'p99<500ms' --threshold 'failed<1%'
  whsim send --url http://localhost:3000/webhook --event all --rate 100 --duration 1m --report run.html
  whsim send --url https://localhost:8443/hook --cacert ca.pem --sign standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`

package listencmd

// The help of whsim listen, as New gives it to cobra: --help, whsim man
// and docs/reference.md are made from it.

const helpUse = "listen [--addr 127.0.0.1:8080] [--path <path>] [--capture <file.ndjson>] [--status <code>] " +
	"[--delay <d>] [--fail-rate <ratio>] [--respond '<EVENT>=<code>,<code>,...']... [--forward-to <url> [--fault <KIND=RATE[:ARG]>]... [--probe <url-template>|--probe-cmd <command>] [--cacert <ca.pem>|--insecure]] " +
	"[--max-body <size>] [--fsync always|interval|never] [--ready-file <file>] [--ui 127.0.0.1:4040 [--ui-token <token>]] [--output text|json] [-v]"

const helpShort = "Receive webhook calls: show, check and record each one"

const helpLong = `Run a local webhook receiver. Every call is answered, checked against the spec
(query event against body, every field) and shown as it arrives; --capture
records each call, byte for byte, before it is answered, for validate and replay.

Answers: --status (default 200), --delay, --fail-rate (answer 500 for that
share of calls) and per-event sequences --respond EVENT=500,500,200 (the last
code repeats) show how a sender retries. --forward-to passes every call on to
your own receiver and returns its answer instead; an https receiver whose
certificate a private CA signed (mkcert, a self-signed dev server) is
trusted with --cacert ca.pem, or unchecked with --insecure. listen is no
HTTP proxy: a CONNECT (a client whose HTTPS_PROXY names listen) is answered
405, never a tunnel, whatever these say, and is not forwarded.

With --forward-to, --fault KIND=RATE[:ARG] puts a real sender's worst day
on that share of the calls, at most one fault per call, drawn from --seed,
the requestId and its attempt (the same seed faults the same calls): toward
the receiver duplicate, burst[:N], delay:DURATION, reorder[:N|DURATION],
truncate, new-request-id; toward the sender drop (503), lose-answer
(forwarded, answered 504), status:CODE. The plan is printed at start; each
fault shows on the call's line, in its capture record and JSON (a "fault"
member) and in the summary; the record of what the sender sent is unchanged.
--probe or --probe-cmd (check's probe contract) then asks at the stop about
each document that passed through: held once, in the state of its last
acknowledged event? Those that broke are named with their faults (exit 1).
A document the receiver acknowledged no call of is not judged, unless it
holds more than one record of it (it stored calls it refused): that broke.
When the receiver held one only when asked again (it stores after
answering), each of more than one call is asked once more as --settle runs
out, and judged on that answer: a copy stored late counts. When every one
matched when first asked, each of more than one call is still asked once
more, as long after that answer as its calls took and 0.1s more (not with
--settle 0, which asks once).
It then asks about a document no sender sent, which must answer count 0:
a probe answering of another document than the one asked is its error.
A number or requestId from the sender holding anything but letters, digits
and - _ . / :, or starting with - or holding .., is never given to
--probe-cmd (a quote would end the SQL string it is pasted into), nor put in
the path of a --probe URL when it is . or holds .., /, \, % or a control
character (a server may read it as another resource; in the query every
value is escaped whole): that document is counted not asked.

It binds 127.0.0.1 only unless --addr names another interface. Once it accepts
connections it prints one line "listening on <url>" to stderr (and writes the
URL to --ready-file). Ctrl-C or SIGTERM finishes the calls in flight, closes
the capture file and prints a summary (--output json: one JSON object a call,
then a "summary" line of the same counts and, with --probe, an "exactlyOnce"
line); the exit status is then 0, or 1 when
the capture failed during the run (calls after it were answered 5xx, unrecorded;
or the file was deleted or moved away after the last call, which it holds
then at no path) or --probe found a document not held once in its state, or judged none (no
document passed through whole: nothing verified is no pass). A second Ctrl-C or
SIGTERM while calls are in flight stops at once, leaving them unanswered
(exit 130), as do calls still in flight 30s after the first; such calls
are still recorded, printed and counted. When the reader of stdout goes
away (listen | head -1), listen stops as on Ctrl-C (on Linux as soon as
it goes, elsewhere at the next line it prints), the calls it could not
print only in --capture, and says so in the summary (exit 141, as a shell
says of a program SIGPIPE ends); a stdout it cannot write (a full disk)
stops it the same way, exit 2 (output it could not write). Either code
stands whether stdout failed before or after a Ctrl-C or SIGTERM.

--ui serves the web inspector on its own address (never the webhook's): the
calls live in a browser, each body as a tree with its findings, search,
diff, replay and export (see whsim inspect for a capture file). It keeps
the newest 1,000 calls and 64 MiB of bodies in memory; with --capture,
older calls and bodies are read back from the file as the page asks,
without it they are gone from the page. The URL printed carries the
session's token, drawn per run unless --ui-token (WHSIM_UI_TOKEN) names one
(see whsim inspect --help for the API with curl).`

const helpExample = `  whsim listen
  whsim listen --addr 127.0.0.1:0 --ready-file url.txt --capture calls.ndjson
  whsim listen --respond AUDIT_PURCHASE_ORDER_INVOICE=500,500,200 --delay 2s
  whsim listen --forward-to http://localhost:3000/webhooks/erp --capture calls.ndjson -v
  whsim listen --forward-to http://localhost:3000/hook --fault lose-answer=0.2 --seed 7 --probe 'http://localhost:3000/debug/{kind}s/{code}'
  whsim listen --forward-to https://localhost:8443/hook --cacert "$(mkcert -CAROOT)/rootCA.pem"
  whsim listen --output json | jq -c 'select(.verdict and .verdict != "valid")'
  whsim listen --capture calls.ndjson --ui 127.0.0.1:4040
  whsim listen --ui 127.0.0.1:4040 --ui-token "$(cat ~/.config/whsim/ui-token)"`

// One fixture as the validate benchmarks feed it: compacted to one line,
// or with CAPTURE set inside a capture record as listen writes one.
// Shared by run.sh and ab.sh, so both time the same bytes.
//   node line.mjs fixtures/CREATE_RECEIVABLE_DOC.json
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const file = process.argv[2];
const body = JSON.stringify(JSON.parse(readFileSync(file, "utf8")));
const event = basename(file).split(".")[0];
const line = process.env.CAPTURE
  ? JSON.stringify({
      capture: 1, time: "2026-12-01T10:00:00.000000001Z", remote: "127.0.0.1:40000",
      method: "POST", path: "/hook", query: "businessType=" + event,
      headers: { "Content-Type": ["application/json"], "User-Agent": ["whsim"], "Content-Length": [String(Buffer.byteLength(body))] },
      body, bodyEncoding: "utf8",
      response: { status: 200, headers: { "Content-Type": ["application/json"] }, body: '{"status":200}', bodyEncoding: "utf8" },
    })
  : body;
process.stdout.write(line + "\n");

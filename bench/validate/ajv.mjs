// The Ajv baseline of the validate benchmark: JSON.parse and validate each
// NDJSON line against the schema whsim schema exported; prints payloads/s
// with the bundle (any event and shape, as whsim validate gets it) and with
// each payload's own schema picked for it in advance (Ajv's best case), then
// the number of payloads rejected (in the last pass of each). With CAPTURE
// set, each line is a capture record: its body is parsed from the parsed
// record. AJV_PASSES_LOG=1 prints each pass's figure on stderr.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.cwd() + "/");
const Ajv2020 = require("ajv/dist/2020").default;

const [schemaFile, dataFile, namesFile] = process.argv.slice(2);
const capture = Boolean(process.env.CAPTURE);
const bundle = JSON.parse(readFileSync(schemaFile, "utf8"));
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema(bundle);
const any = ajv.getSchema(bundle.$id);
const names = readFileSync(namesFile, "utf8").trim().split("\n");
const own = names.map((n) => ajv.getSchema(`${bundle.$id}#/$defs/${n}`));
const lines = readFileSync(dataFile, "utf8").trim().split("\n");
function run(pick) {
  let bad = 0;
  for (let i = 0; i < lines.length; i++) {
    const doc = capture ? JSON.parse(JSON.parse(lines[i]).body) : JSON.parse(lines[i]);
    if (!pick(i)(doc)) bad++;
  }
  return bad;
}
// Ajv's best of PASSES timed passes (default 5) after one warm-up pass
// (which lets the JIT compile): V8's speed on this loop is bimodal from
// one run to the next (about 31,000 or 56,000 capture records/s on the
// development machine), and its best is the fair peer of whsim's best of
// three whole processes. Only the loop is timed: reading the file, the
// start of node and compiling the schema are not.
const passes = Number(process.env.PASSES || 5);
function measure(pick) {
  run(pick);
  let best = 0, bad = 0;
  for (let p = 0; p < passes; p++) {
    const t0 = process.hrtime.bigint();
    bad = run(pick);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    best = Math.max(best, Math.round(lines.length / secs));
    if (process.env.AJV_PASSES_LOG) console.error(`pass ${p + 1}: ${Math.round(lines.length / secs)}/s`);
  }
  return [best, bad];
}
const [a, badA] = measure(() => any);
const [b, badB] = measure((i) => own[i % own.length]);
console.log(`${a} ${b} ${badA + badB}`);

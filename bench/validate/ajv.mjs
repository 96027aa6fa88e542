// The Ajv baseline of the validate benchmark: JSON.parse and validate each
// NDJSON line against the schema whsim schema exported; prints payloads/s
// with the bundle (any event and shape, as whsim validate gets it) and with
// each payload's own schema picked for it in advance (Ajv's best case), then
// the number of payloads rejected. With CAPTURE set, each line is a capture
// record: its body is parsed from the parsed record.
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
function measure(pick) {
  run(pick); // warm up (and let the JIT compile)
  const t0 = process.hrtime.bigint();
  const bad = run(pick);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return [Math.round(lines.length / secs), bad];
}
const [a, badA] = measure(() => any);
const [b, badB] = measure((i) => own[i % own.length]);
console.log(`${a} ${b} ${badA + badB}`);

// Runs the npm validators on whsim schema's API documents (the test in
// apidocs_test.go starts it with node, NODE_PATH at the installed tools):
//
//   node apidocs.cjs openapi  openapi.json  fixtures/   @readme/openapi-parser, then Ajv on each fixture
//   node apidocs.cjs asyncapi asyncapi.json             @asyncapi/parser
//
// Prints what it found, one line each, and exits 1 on any error.
const { readFileSync, readdirSync } = require("node:fs");
const path = require("node:path");

const [mode, file, fixturesDir] = process.argv.slice(2);
const text = readFileSync(file, "utf8");
let bad = 0;
const fail = (msg) => { bad++; console.log("error: " + msg); };

async function openapi() {
  const { validate, compileErrors } = require("@readme/openapi-parser");
  // validate dereferences its argument in place: give it its own copy.
  const res = await validate(JSON.parse(text));
  if (!res.valid) fail("@readme/openapi-parser: " + compileErrors(res));
  for (const w of res.warnings || []) console.log("warning: @readme/openapi-parser: " + JSON.stringify(w));
  console.log("@readme/openapi-parser: " + (res.valid ? "valid" : "invalid"));

  // Each fixture against the request body schema of its event's webhook,
  // the document itself the schema resource its $refs point into.
  const Ajv2020 = require("ajv/dist/2020").default;
  const addFormats = require("ajv-formats").default;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const doc = JSON.parse(text);
  doc.$id = "https://whsim.dev/openapi.json";
  ajv.addSchema(doc);
  let n = 0;
  for (const f of readdirSync(fixturesDir).filter((f) => f.endsWith(".json")).sort()) {
    const event = f.split(".")[0];
    const hook = doc.webhooks[event];
    if (!hook) { fail(`${f}: no webhook ${event}`); continue; }
    const ptr = `#/webhooks/${event}/post/requestBody/content/application~1json/schema`;
    const check = ajv.getSchema(doc.$id + ptr);
    const body = JSON.parse(readFileSync(path.join(fixturesDir, f), "utf8"));
    if (check(body)) {
      n++;
      console.log(`ajv: ${f} valid against ${ptr}`);
    } else {
      fail(`ajv: ${f} against ${ptr}: ${ajv.errorsText(check.errors)}`);
    }
    // Not a schema that takes anything: the other kind's body is refused.
    const other = Object.keys(doc.webhooks).find((e) => e.split("_").pop() !== event.split("_").pop());
    if (ajv.getSchema(doc.$id + `#/webhooks/${other}/post/requestBody/content/application~1json/schema`)(body)) {
      fail(`ajv: ${f} accepted by the schema of ${other}`);
    }
  }
  console.log(`ajv: ${n} fixtures valid`);
}

async function asyncapi() {
  const { Parser } = require("@asyncapi/parser");
  const { diagnostics } = await new Parser().parse(text);
  for (const d of diagnostics) {
    // 0 error, 1 warning, 2 information, 3 hint (Spectral's severities).
    const line = `${d.code}: ${d.message} at ${(d.path || []).join(".")}`;
    if (d.severity === 0) fail("@asyncapi/parser: " + line);
    else console.log("warning: @asyncapi/parser: " + line);
  }
  console.log(`@asyncapi/parser: ${diagnostics.filter((d) => d.severity === 0).length} errors`);
}

(mode === "openapi" ? openapi() : asyncapi()).then(
  () => process.exit(bad ? 1 : 0),
  (err) => { console.log("error: " + (err && err.stack || err)); process.exit(1); },
);

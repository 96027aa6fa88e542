// Validates each payload of a corpus against the schema of its event with
// Ajv (draft 2020-12, formats asserted); the test in agree_test.go starts it
// with NODE_PATH at the installed tools:
//
//   node agree.cjs schema.json corpus.json
//
// schema.json is whsim schema's bundle ($defs EVENT, the body in either
// shape, over EVENT.described and EVENT.sample); corpus.json a list of
// {event, body}. Prints a JSON list of verdicts (true: accepted), one per
// payload.
const { readFileSync } = require("node:fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const [schemaFile, corpusFile] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
const corpus = JSON.parse(readFileSync(corpusFile, "utf8"));
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
ajv.addSchema(schema);
const byEvent = new Map();
const check = (event) => {
  if (!byEvent.has(event)) {
    byEvent.set(event, ajv.compile({ $ref: `${schema.$id}#/$defs/${event}` }));
  }
  return byEvent.get(event);
};
process.stdout.write(JSON.stringify(corpus.map((m) => check(m.event)(m.body))));

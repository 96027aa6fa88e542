// Compiles each schema file given with Ajv (draft 2020-12) in its default
// strict mode, as the ajv-cli command in whsim schema --help runs it, and
// prints every strict-mode message Ajv logs; the test in agree_test.go
// starts it with NODE_PATH at the installed tools:
//
//   node strict.cjs schema.json...
//
// Prints "compiled N" at the end.
const { readFileSync } = require("node:fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const messages = [];
const logger = {
  log: (...a) => messages.push(a.join(" ")),
  warn: (...a) => messages.push(a.join(" ")),
  error: (...a) => messages.push(a.join(" ")),
};
let n = 0;
for (const file of process.argv.slice(2)) {
  const ajv = new Ajv2020({ logger });
  addFormats(ajv);
  ajv.compile(JSON.parse(readFileSync(file, "utf8")));
  n++;
}
for (const m of messages) console.log(m);
console.log(`compiled ${n}`);

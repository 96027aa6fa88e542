# Validates each payload of a corpus against the schema of its event with
# Python's jsonschema (Draft202012Validator); the test in agree_test.go runs
# it with the interpreter that imports jsonschema:
#
#   python3 agree.py schema.json corpus.json
#
# schema.json is whsim schema's bundle ($defs EVENT, the body in either
# shape, over EVENT.described and EVENT.sample); corpus.json a list of {event, body}. Prints a JSON object of
# two lists of verdicts (true: accepted), one per payload: "plain", as
# jsonschema validates by default (format is an annotation), and
# "formats", with its FormatChecker asserting formats.
#
# jsonschema matches pattern with re.search, where $ also matches before a
# final "\n": the corpus has such values, and the schemas must refuse them
# as Ajv does. Local $refs only, so that jsonschema 4.10 (Debian's) and
# the current one (its referencing library) read the schema alike.
import json
import sys

import jsonschema

schema_file, corpus_file = sys.argv[1:3]
with open(schema_file, encoding="utf-8") as f:
    bundle = json.load(f)
with open(corpus_file, encoding="utf-8") as f:
    corpus = json.load(f)

validators = {}


def check(event, formats):
    key = (event, formats)
    if key not in validators:
        schema = {
            "$schema": bundle["$schema"],
            "$id": bundle["$id"],
            "$defs": bundle["$defs"],
            "$ref": "#/$defs/%s" % event,
        }
        checker = jsonschema.FormatChecker() if formats else None
        validators[key] = jsonschema.Draft202012Validator(schema, format_checker=checker)
    return validators[key]


out = {
    name: [check(m["event"], formats).is_valid(m["body"]) for m in corpus]
    for name, formats in (("plain", False), ("formats", True))
}
json.dump(out, sys.stdout)

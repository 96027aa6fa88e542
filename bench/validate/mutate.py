#!/usr/bin/env python3
"""Deterministic mutations of the fixtures, for comparing two builds of
whsim validate (bench/validate/mutations.sh).

    mutate.py FIXTURES_DIR OUT_DIR [PER_FIXTURE]

Writes PER_FIXTURE (default 300) mutants of each fixtures/*.json into
OUT_DIR: one file each (OUT_DIR/files/NNNN-<fixture>.json), all of them as
NDJSON (payloads.ndjson), and all of them as listen's capture records
(captures.ndjson; every seventh with a wrong or missing businessType in
its query). The same arguments write the same bytes.
"""
import base64
import json
import os
import random
import sys


def paths(v, p=()):
    """Every path into v, containers included."""
    yield p
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, p + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, p + (i,))


def get(v, p):
    for k in p:
        v = v[k]
    return v


def put(v, p, x):
    get(v, p[:-1])[p[-1]] = x


def wrong_type(x):
    if isinstance(x, bool):
        return "true"
    if isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, str):
        return 12345
    if isinstance(x, list):
        return {"0": x[0] if x else None}
    if isinstance(x, dict):
        return [x]
    return 0


def mutate(doc, r):
    """One mutation of doc (a parsed fixture): (name, raw) where raw is
    the mutant's bytes (not always JSON, not always UTF-8)."""
    doc = json.loads(json.dumps(doc))
    all_paths = [p for p in paths(doc) if p]
    leaves = [p for p in all_paths if not isinstance(get(doc, p), (dict, list))]
    members = [p for p in all_paths if isinstance(p[-1], str)]
    strings = [p for p in leaves if isinstance(get(doc, p), str)]
    numbers = [p for p in leaves if isinstance(get(doc, p), (int, float)) and not isinstance(get(doc, p), bool)]
    kind = r.choice(["delete", "wrong-type", "bad-enum", "bad-date", "extra", "null", "duplicate",
                     "truncate", "number", "string-edit", "escape", "envelope", "two", "pretty", "bad-json"])
    if kind == "delete" and members:
        p = r.choice(members)
        del get(doc, p[:-1])[p[-1]]
    elif kind == "wrong-type":
        p = r.choice(all_paths)
        put(doc, p, wrong_type(get(doc, p)))
    elif kind == "bad-enum" and strings:
        p = r.choice(strings)
        put(doc, p, r.choice(["BOGUS", "", "已作废x", "usd", "CNY ", "销售收款"]))
    elif kind == "bad-date" and numbers:
        p = r.choice(numbers)
        put(doc, p, r.choice([1789833600, -1, 0, 4102444800001, 1.5, 1e300, "2026-12-01", 946684799999]))
    elif kind == "extra":
        objs = [p for p in all_paths if isinstance(get(doc, p), dict)] + [()]
        p = r.choice(objs)
        get(doc, p)[r.choice(["extra", "备注2", "a.b", "", "x y", "\u202e"])] = r.choice([1, "x", None, [], {}])
    elif kind == "null" and members:
        put(doc, r.choice(members), None)
    elif kind == "number" and numbers:
        p = r.choice(numbers)
        x = get(doc, p)
        put(doc, p, r.choice([x + 1, x * 10, -x, round(x / 3, 7), 0, x + 0.001]))
    elif kind == "string-edit" and strings:
        p = r.choice(strings)
        s = get(doc, p)
        i = r.randrange(len(s) + 1)
        put(doc, p, s[:i] + r.choice(["X", "0", "-", "\n", "\"", "\\", "é", "\u0000", "\u2028"]) + s[i + 1:])
    elif kind == "envelope":
        k = r.choice(["requestId", "businessType", "data"])
        doc[k] = r.choice([None, 5007, 5009, 4000, 4001, 4002, 9999, "5007", "not-a-uuid", {}, [], 5007.5])
    elif kind == "two":
        for _ in range(2):
            if strings:
                put(doc, r.choice(strings), "BOGUS")
            if members:
                p = r.choice(members)
                try:
                    del get(doc, p[:-1])[p[-1]]
                except (KeyError, TypeError, IndexError):
                    pass
                members = [q for q in paths(doc) if q and isinstance(q[-1], str)]
                strings = [q for q in paths(doc) if q and isinstance(get(doc, q), str)]
    text = json.dumps(doc, ensure_ascii=r.random() < 0.2, separators=(",", ":"))
    if kind == "duplicate":
        # A repeated key, textually: json.dumps cannot write one.
        i = text.find('":', r.randrange(len(text)))
        if i > 0:
            j = text.rfind(',"', 0, i)
            if j > 0:
                text = text[:j] + text[j:i + 2] + "0," + text[j + 1:]
    elif kind == "truncate":
        text = text[:r.randrange(1, len(text))]
    elif kind == "escape":
        i = text.find('":"', r.randrange(len(text)))
        if i > 0:
            text = text[:i + 3] + r.choice(["\\t", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\x"]) + text[i + 3:]
    elif kind == "pretty":
        text = json.dumps(json.loads(text), indent=r.choice([1, 2, 4]), ensure_ascii=False)
    raw = text.encode("utf-8")
    if kind == "bad-json":
        i = r.randrange(len(raw))
        raw = raw[:i] + r.choice([b",", b"]", b"}", b"NaN", b"'", b"//", b"\t", b"\x01", b"\xff", b"\xe6\x94"]) + raw[i:]
    return kind, raw


def main():
    src, out = sys.argv[1], sys.argv[2]
    per = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    r = random.Random(20261202)
    n = 0
    with open(os.path.join(out, "payloads.ndjson"), "wb") as nd, \
            open(os.path.join(out, "captures.ndjson"), "wb") as cap:
        for name in sorted(os.listdir(src)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(src, name), encoding="utf-8") as f:
                doc = json.load(f)
            event = name.split(".")[0]
            for _ in range(per):
                kind, raw = mutate(doc, r)
                n += 1
                with open(os.path.join(out, "files", "%04d-%s-%s.json" % (n, name[:-5], kind)), "wb") as f:
                    f.write(raw)
                nd.write(raw.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n")
                try:
                    body, encoding = raw.decode("utf-8"), "utf8"
                except UnicodeDecodeError:  # as listen stores it
                    body, encoding = base64.b64encode(raw).decode(), "base64"
                query = "businessType=" + event
                if n % 7 == 0:
                    query = r.choice(["", "x=1", "businessType=", "businessType=CREATE_RECEIVABLE_DOC", "businessType=NOPE"])
                rec = {"capture": 1, "time": "2026-12-01T10:00:00.000000001Z", "remote": "127.0.0.1:40000",
                       "method": "POST", "path": "/hook", "query": query,
                       "headers": {"Content-Type": ["application/json"]}, "body": body, "bodyEncoding": encoding,
                       "response": {"status": 200, "body": "{}", "bodyEncoding": "utf8"}}
                cap.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    print(n)


if __name__ == "__main__":
    main()

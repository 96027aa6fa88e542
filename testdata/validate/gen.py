#!/usr/bin/env python3
"""Regenerates the validate corpus from the fixtures: python3 testdata/validate/gen.py
Each case is a file under cases/ and a line of expect.txt:
  <file> | <exit code> | <extra args> | <rule ids the findings hold, sorted; - for none>
The test in cmd/whsim/validate_corpus_test.go runs the real binary on each."""
import base64, json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
fx = lambda n: open(os.path.join(root, "fixtures", n), "rb").read()
cases_dir = os.path.join(here, "cases")
os.makedirs(cases_dir, exist_ok=True)
for f in os.listdir(cases_dir):
    os.remove(os.path.join(cases_dir, f))

rec = fx("CREATE_RECEIVABLE_DOC.sample.json")
recd = fx("ABANDON_RECEIVABLE_DOC.described.json")
inv = fx("AUDIT_PURCHASE_ORDER_INVOICE.described.json")
invc = fx("CREATE_PURCHASE_ORDER_INVOICE.described.json")
smp = fx("CREATE_PURCHASE_ORDER_INVOICE.sample.json")
lines = []

def case(name, body, exit_code, rules, args="-"):
    path = os.path.join(cases_dir, name)
    with open(path, "wb") as f:
        f.write(body)
    lines.append(f"cases/{name} | {exit_code} | {args} | {','.join(sorted(set(rules))) or '-'}")

def sub(body, old, new, count=1):
    old, new = old.encode() if isinstance(old, str) else old, new.encode() if isinstance(new, str) else new
    assert old in body, old
    return body.replace(old, new, count)

def sub_re(body, pat, new):
    b, n = re.subn(pat.encode(), new.encode(), body, count=1)
    assert n == 1, pat
    return b

def compact(b):
    return json.dumps(json.loads(b), ensure_ascii=False, separators=(",", ":")).encode()

def capture(query, body, enc="utf8"):
    s = body.decode() if enc == "utf8" else base64.b64encode(body).decode()
    return json.dumps({"capture": 1, "time": "2026-11-22T04:00:00.123456789Z", "remote": "127.0.0.1:53422",
                       "method": "POST", "path": "/hook", "query": query,
                       "headers": {"Content-Type": ["application/json"]}, "body": s, "bodyEncoding": enc,
                       "response": {"status": 200, "body": "ok", "bodyEncoding": "utf8"}},
                      ensure_ascii=False, separators=(",", ":")).encode()

# valid payloads: every fixture, with and without the event asserted
for n in sorted(os.listdir(os.path.join(root, "fixtures"))):
    if n.endswith(".json"):
        ev = n.split(".")[0]
        case("valid-" + n, fx(n), 0, [])
        case("valid-event-" + n, fx(n), 0, [], "--event " + ev + " --strict")
case("valid-all.ndjson", b"\n".join(compact(fx(n)) for n in sorted(os.listdir(os.path.join(root, "fixtures"))) if n.endswith(".json")) + b"\n", 0, [], "--strict")
case("valid-captures.log", capture("businessType=CREATE_RECEIVABLE_DOC", compact(rec)) + b"\n" +
     capture("businessType=AUDIT_PURCHASE_ORDER_INVOICE&x=1", compact(inv), "base64") + b"\n", 0, [], "--strict")
case("valid-4000-create.json", smp, 0, [], "--event CREATE_PURCHASE_ORDER_INVOICE")
case("valid-4000-audit.json", smp, 0, [], "--event AUDIT_PURCHASE_ORDER_INVOICE")
case("valid-uuid-upper.json", sub_re(rec, r'"requestId": "[^"]+"', '"requestId": "9424F8A8-0AA8-434F-88F9-C391BA0CDAD4"'), 0, [], "--strict")
case("valid-business-type-float.json", sub(rec, '"businessType": 5007', '"businessType": 5007.0'), 0, [], "--strict")
case("valid-escaped-key.json", sub(rec, '"收款用途"', '"\\u6536\\u6b3e\\u7528\\u9014"'), 0, [], "--strict")
case("valid-crlf.json", rec.replace(b"\n", b"\r\n"), 0, [], "--strict")

# strict JSON
case("syntax-empty.json", b"", 1, ["json-syntax"])
case("syntax-whitespace.json", b" \n\t\n", 1, ["json-syntax"])
case("syntax-bom.json", b"\xef\xbb\xbf" + rec, 1, ["json-syntax"])
case("syntax-nan.json", sub(rec, '"汇率": 1.0000', '"汇率": NaN'), 1, ["json-syntax"])
case("syntax-infinity.json", sub(rec, '"汇率": 1.0000', '"汇率": -Infinity'), 1, ["json-syntax"])
case("syntax-single-quotes.json", sub(rec, '"编号": "1"', "'编号': '1'"), 1, ["json-syntax"])
case("syntax-trailing-comma-object.json", sub(rec, '"收款跳转标志": 0', '"收款跳转标志": 0,'), 1, ["json-syntax"])
case("syntax-trailing-comma-array.json", sub_re(rec, r'\}\n    \],\n    "源单明细"', '},\n    ],\n    "源单明细"'), 1, ["json-syntax"])
case("syntax-trailing-data.json", rec + b"x\n", 1, ["json-syntax"])
case("syntax-two-documents.json", rec + rec, 1, ["json-syntax"])
case("syntax-invalid-utf8.json", sub(rec, "销售收款", b"\xe9\x94\x80\xff"), 1, ["json-syntax"])
case("syntax-truncated.json", rec[: len(rec) // 2], 1, ["json-syntax"])
case("syntax-comment.json", b"// receipt\n" + rec, 1, ["json-syntax"])
case("syntax-leading-zero.json", sub(rec, '"收款跳转标志": 0', '"收款跳转标志": 00'), 1, ["json-syntax"])
case("syntax-control-char.json", sub(rec, "销售收款", "销售\t收款"), 1, ["json-syntax"])
case("syntax-bad-escape.json", sub(rec, "销售收款", "销售\\q收款"), 1, ["json-syntax"])
case("syntax-unquoted-key.json", sub(rec, '"编号": "1"', 'id: "1"'), 1, ["json-syntax"])
case("syntax-too-deep.json", b'{"x":' + b"[" * 10001 + b"]" * 10001 + b"}", 1, ["json-syntax"])

# the envelope
case("envelope-array.ndjson", b"[" + compact(rec) + b"]\n", 1, ["envelope"])
case("array-of-payloads.json", b"[\n" + rec.rstrip() + b",\n" + inv.rstrip() + b"\n]\n", 0, [], "--strict")
case("array-bad-element.json", b"[\n" + rec.rstrip() + b",\n" + inv.replace(b'"PASS"', b'"pass"').rstrip() + b"\n]\n", 1, ["enum"])
case("envelope-string.json", b'"hello"', 1, ["envelope"])
case("envelope-null.json", b"null", 1, ["envelope"])
case("request-id-missing.json", sub_re(rec, r'  "requestId": "[^"]+",\n', ""), 1, ["envelope-request-id"])
case("request-id-number.json", sub_re(rec, r'"requestId": "[^"]+"', '"requestId": 12345'), 1, ["envelope-request-id"])
case("request-id-null.json", sub_re(rec, r'"requestId": "[^"]+"', '"requestId": null'), 1, ["envelope-request-id"])
case("request-id-not-uuid.json", sub_re(rec, r'"requestId": "[^"]+"', '"requestId": "req-0001"'), 1, ["envelope-request-id"])
case("business-type-missing.json", sub(rec, '  "businessType": 5007,\n', ""), 1, ["envelope-business-type"])
case("business-type-string.json", sub(rec, '"businessType": 5007', '"businessType": "5007"'), 1, ["envelope-business-type"])
case("business-type-fraction.json", sub(rec, '"businessType": 5007', '"businessType": 5007.5'), 1, ["envelope-business-type"])
case("business-type-unknown.json", sub(rec, '"businessType": 5007', '"businessType": 5008'), 1, ["envelope-business-type"])
case("business-type-null.json", sub(rec, '"businessType": 5007', '"businessType": null'), 1, ["envelope-business-type"])
case("data-missing.json", b'{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007}', 1, ["envelope-data"])
case("data-null.json", b'{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":null}', 1, ["envelope-data"])
case("data-array.json", b'{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":[]}', 1, ["envelope-data"])
case("data-string.json", b'{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":"{}"}', 1, ["envelope-data"])

# the event against the body number
case("event-receipt-vs-abandon.json", rec, 1, ["event-mismatch"], "--event ABANDON_RECEIVABLE_DOC")
case("event-receipt-vs-invoice.json", rec, 1, ["event-mismatch"], "--event CREATE_PURCHASE_ORDER_INVOICE")
case("event-4011-vs-create.json", inv, 1, ["event-mismatch"], "--event CREATE_PURCHASE_ORDER_INVOICE")
case("event-4010-vs-audit.json", invc, 1, ["event-mismatch"], "--event AUDIT_PURCHASE_ORDER_INVOICE")
case("capture-event-mismatch.log", capture("businessType=ABANDON_RECEIVABLE_DOC", compact(rec)) + b"\n", 1, ["event-mismatch"])
case("capture-no-event.log", capture("x=1", compact(rec)) + b"\n", 1, ["query-event"])
case("capture-unknown-event.log", capture("businessType=DELETE_EVERYTHING", compact(rec)) + b"\n", 1, ["query-event"])
case("capture-base64-bad-utf8.log", capture("businessType=CREATE_RECEIVABLE_DOC", b'{"a":"\xff"}', "base64") + b"\n", 1, ["json-syntax"])
case("capture-torn-last-line.log", capture("businessType=CREATE_RECEIVABLE_DOC", compact(rec)) + b"\n" +
     capture("businessType=CREATE_RECEIVABLE_DOC", compact(rec))[:300], 0, ["torn-line"], "--strict")
case("capture-unreadable.log", capture("businessType=CREATE_RECEIVABLE_DOC", compact(rec)) + b"\n" + b'{"capture":1,"body":42}\n', 1, ["capture-record"])

# types, enumerations, formats
case("type-number-as-string.json", sub(rec, '"应收金额": 315811.94', '"应收金额": "315811.94"'), 1, ["type"])
case("type-boolean-as-string.json", sub(rec, '"是否生产凭证": false', '"是否生产凭证": "false"'), 1, ["type"])
case("type-object-as-string.json", sub_re(rec, r'"客户名称": \{[^}]*\}', '"客户名称": "温州锦程"'), 1, ["type"])
case("type-millis-fraction.json", sub_re(rec, r'"业务日期": (\d+)', '"业务日期": 1789833600000.5'), 1, ["type"])
case("type-item-attributes-number.json", sub_re(inv, r'"itemAttributes": \{\n\s+"([^"]+)": "[^"]*"', '"itemAttributes": {\n "\\1": 3'), 1, ["type"])
case("type-item-attributes-array.json", sub_re(inv, r'"itemAttributes": \{', '"itemAttributes": ["x"], "itemAttributes2": {'), 1, ["type", "unknown-field"])
case("type-item-not-object.json", sub(inv, '"items": [', '"items": ["CGRKD", '), 1, ["type"])
case("type-status-boolean.json", sub(inv, '"status": "PASS"', '"status": true'), 1, ["type"])
case("type-hidden-decimal-number.json", sub_re(rec, r'"应收金额本位币-隐": "([0-9.]+)"', '"应收金额本位币-隐": \\1'), 1, ["type"])
case("enum-create-type.json", sub_re(inv, r'"createType": "[A-Z_]+"', '"createType": "PURCHASE_INVOICE"'), 1, ["enum"])
case("enum-status.json", sub(inv, '"status": "PASS"', '"status": "APPROVED"'), 1, ["enum"])
case("format-currency.json", sub(inv, '"currency": "CNY"', '"currency": "RMB¥"'), 1, ["format"])
case("format-currency-lower.json", sub(inv, '"currency": "CNY"', '"currency": "cny"'), 1, ["format"])
case("format-decimal-string.json", sub_re(rec, r'"应收金额本位币-隐": "([0-9]+)\.([0-9]{2})"', '"应收金额本位币-隐": "\\1.\\2 元"'), 1, ["format"])
case("format-negative-millis.json", sub_re(inv, r'"createTime": (\d+)', '"createTime": -1'), 1, ["format"])

# receipts and invoices, shapes
case("receipt-lacks-sources.json", sub_re(rec, r',\n    "源单明细": \[(.|\n)*\]\n  \}\n\}', '\n  }\n}'), 1, ["receipt-member"])
case("receipt-header-null.json", sub_re(rec, r'"收款单": \{(.|\n)*?\n    \},', '"收款单": null,'), 1, ["null-field", "receipt-member"])
case("receipt-lines-object.json", sub(rec, '"收款明细": [', '"收款明细": {"x": ['), 1, ["json-syntax"])
case("receipt-lines-string.json", sub_re(rec, r'"收款明细": \[(.|\n)*?\n    \],', '"收款明细": "none",'), 1, ["type"])
case("receipt-line-not-object.json", sub(rec, '"收款明细": [', '"收款明细": [null, '), 1, ["type"])
case("invoice-with-receipt-member.json", sub(inv, '"data": {', '"data": {\n    "收款明细": [],'), 1, ["receipt-in-invoice"])
case("mixed-markers.json", sub(inv, '"customerCode"', '"enterpriseCode"'), 1, ["mixed-shape"])
case("mixed-records-items.json", sub(inv, '"items": [', '"records": [],\n    "items": ['), 1, ["mixed-shape"])
case("mixed-integer-status.json", sub(inv, '"status": "PASS"', '"status": 1'), 1, ["mixed-shape"])
case("mixed-string-status.json", sub_re(smp, r'"status": \d+', '"status": "PASS"'), 1, ["mixed-shape"])
case("shape-described-asserted.json", smp, 1, ["missing-field", "type", "unknown-field"], "--shape described")

# duplicate keys
case("duplicate-envelope.json", sub(rec, '"businessType": 5007,', '"businessType": 5007,\n  "businessType": 5009,'), 1, ["duplicate-key"])
case("duplicate-field.json", sub(rec, '"编号": "1",', '"编号": "1",\n        "编号": "2",'), 1, ["duplicate-key"])
case("duplicate-escaped.json", sub(inv, '"itemAttributes": {', '"itemAttributes": {\n "\\u54c1\\u724c": "x", "品牌": "y",'), 1, ["duplicate-key"])

# warnings: exit 0, unless --strict
case("warn-unknown-field.json", sub(rec, '"编号": "1",', '"编号": "1",\n        "备注": "",'), 0, ["unknown-field"])
case("warn-unknown-field-strict.json", sub(rec, '"编号": "1",', '"编号": "1",\n        "备注": "",'), 1, ["unknown-field"], "--strict")
case("warn-unknown-field-ignored.json", sub(rec, '"编号": "1",', '"编号": "1",\n        "备注": "",'), 0, [], "--strict --ignore unknown-field")
case("warn-missing-field.json", sub_re(rec, r'\n\s+"收款用途": "[^"]*",', ""), 0, ["missing-field"])
case("warn-missing-field-strict.json", sub_re(rec, r'\n\s+"收款用途": "[^"]*",', ""), 1, ["missing-field"], "--strict")
case("warn-null-field.json", sub_re(rec, r'"收款用途": "[^"]*"', '"收款用途": null'), 0, ["null-field"])
case("warn-invoice-type.json", sub(inv, '"VALUE_ADDED_TAX"', '"ORDINARY_INVOICE"'), 0, ["unexpected-value"])
case("warn-currency-pre001.json", sub(rec, '"code": "CNY"', '"code": "PRE001"'), 0, ["unexpected-value"])
case("warn-tax-id.json", sub_re(inv, r'"taxCode": "([0-9A-Z]{17})[0-9A-Z]"', '"taxCode": "\\1Z"'), 0, ["tax-id-check"])
case("warn-tax-id-pilot.json", sub_re(inv, r'"taxCode": "[0-9A-Z]{18}"', '"taxCode": "91350100M000100Y4Z"'), 0, ["tax-id-check"])
case("warn-timestamp-seconds.json", sub_re(rec, r'"业务日期": (\d+)\d\d\d', '"业务日期": \\1'), 0, ["timestamp-seconds"])
case("warn-timestamp-1970.json", sub_re(rec, r'"业务日期": (\d+)', '"业务日期": 86400000'), 0, ["timestamp-range"])
case("warn-timestamp-future.json", sub_re(inv, r'"createTime": (\d+)', '"createTime": 32503680000000'), 0, ["timestamp-range"])
case("warn-line-tax.json", sub_re(inv, r'"tax": [0-9.]+', '"tax": 0.5'), 0, ["line-tax"])
case("warn-receipt-totals.json", sub_re(rec, r'"已核销金额": 0.00,\n      "未核销金额": ([0-9.]+)', '"已核销金额": 1.00,\n      "未核销金额": 1.00'), 0, ["outstanding-amount", "receipt-totals"])
case("warn-outstanding.json", sub_re(rec, r'"未核销金额": ([0-9]+)\.[0-9]{2},\n        "已核销金额本位币', '"未核销金额": 1.00,\n        "已核销金额本位币'), 0, ["outstanding-amount"])
case("warn-base-amount.json", sub_re(rec, r'"应收金额本位币": [0-9.]+', '"应收金额本位币": 1.00'), 0, ["base-amount"])

# NDJSON: findings name the line
case("ndjson-one-bad-line.ndjson", compact(rec) + b"\n" + compact(inv).replace(b'"PASS"', b'"pass"') + b"\n\n" + compact(smp) + b"\n", 1, ["enum"])
case("ndjson-truncated-line.jsonl", compact(rec) + b"\n" + compact(inv)[:200] + b"\n", 1, ["json-syntax"])
case("ndjson-bad-first-line", compact(rec)[:-1] + b",}\n" + compact(inv) + b"\n", 1, ["json-syntax"])

# usage errors: exit 2
case("usage-unknown-event.json", rec, 2, [], "--event CREATE_RECEIVABLE")
case("usage-unknown-rule.json", rec, 2, [], "--ignore no-such-rule")
case("usage-unknown-shape.json", rec, 2, [], "--shape round")
case("usage-unknown-output.json", rec, 2, [], "--output yaml")

with open(os.path.join(here, "expect.txt"), "w") as f:
    f.write("# file | exit code | extra args (- for none) | rule ids found (- for none); see gen.py\n")
    f.write("\n".join(lines) + "\n")
print(len(lines), "cases")

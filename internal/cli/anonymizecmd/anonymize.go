// Package anonymizecmd is whsim anonymize: capture logs and payloads with
// the names, tax ids and document numbers replaced, for sharing. Its
// renderers are in anonymizeout.
package anonymizecmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/anonymize"
	"github.com/whsim/whsim/internal/cli/anonymizeout"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/termsafe"
)

type anonymizeOptions struct {
	Files  []string
	Key    string
	Out    string
	Resign string
	Check  bool
}

// helpLong is anonymize's help text, written once: docs/reference.md and
// the man page are generated from it.
const helpLong = `Turn captured production calls into fixtures that are safe to commit or attach
to a bug report. Reads payloads (one JSON document, an array of them, or
NDJSON) or capture records (whsim listen --capture) and writes the same kind
(into a .ndjson file, a document or an array as NDJSON, one value a line).
A string that holds a JSON document (data sent as a string, a HAR export's
bodies, base64 and gzip ones too) is anonymized as a payload.

What identifies someone, from the spec model: people's names and employee
codes, company names and customer codes, tax ids, invoice numbers and titles,
document numbers, remarks and comments, the customer objects of receipts.
Each becomes a realistic stand-in: a tax id another valid unified social
credit code (a sole trader's that is an identity card number another valid
identity card number), a name another Chinese name, a code the same format.
A field the spec does not have is replaced the same way when it names a
company (supplierName, 单位名称, 客户) or is a name (name, userName) whose
whole value is a person's or a company's name; and a value anywhere named
as one of the spec's identifying fields is (a query parameter, a header, an
XML element: ?staffName=, X-Tax-Code, <customerCode>). Amounts,
rates, dates, enumerations, currencies and the event are kept exactly, and
only the replaced values' bytes change (key order, white space and number
spellings survive).

The stand-ins are keyed: the same value with the same key always becomes the
same stand-in, in every field of its kind, record and run, so a receipt's
CREATE and ABANDON stay linked; another key gives other stand-ins, and
without the key the mapping cannot be recovered (HMAC-SHA256). Keep the key
secret and use a random one of at least 16 bytes.

Everything else in a payload or record is searched too, decoded (JSON
escapes, JSON's \u escapes written into text, percent-encoding, twice too,
a value in base64 that decodes to text, XML's and HTML's character
references, &#24352;, each written back as it came):
every other string, object key and number, the
path and query, every header of the request, the response and the forward
(its name too), the forward URL, the receivers' answers, and a request body
that is not JSON (kept, and anonymized as text; in XML an element labels its
text as a field of its name does: <contactName>, <nsrsbh>; in JSON that does
not parse, cut short or holding a byte that is not UTF-8, which stays, each
string as in JSON: "staffName":"…"). There, any value the run
replaced anywhere in the input (it is read twice for this, before and after,
and several inputs are all read before the first is written; stdin is first
copied to a temporary file, removed after; a value too short to search
for inside words, as a staff code 0038, where it stands as a token of its
own), and anything shaped like a tax id (after its label 15 to 20
characters too: 税号310104710932064), a mobile, a landline number (area
code and local number set apart: 021-62345678, (0755)26668888,
400-810-8888, +86 21 6234 5678; after its label, run together or alone:
电话02162345678, 传真：62345678), an identity-card number, a street address (a road and
door number, 文三路478号, with the region before it and the rooms after
it; a road after its district, 上海市浦东新区张江路, or after its city and
province, 浙江省杭州市文三路, its door number without 号 if written; an
estate's building, 翠苑小区3栋; after its label, 地址：杭州市西湖区文三, or
under a field so named, 收货地址, deliveryAddress, one cut short), a bank card number (16 to 19 digits under a Chinese bank's prefix, with a
valid Luhn check digit; under 62 as they stand, under 4, 5 and 9 in groups
of four; after its label, 卡号, 银行卡, card no., or under a field so named,
bankCard, any check digit), a bank account after its label (账号, 账户, 开户行及账号, account, Acct No.:
a bank's name, then 9 to 30 digits, and each one listed after it, 账号 1202… 或 6217…; or right after a bank's name, 中国工商银行杭州分行
1202…, 工行 1202 …, or where money is sent, 汇款至, 打款至, remit to; or under a field, query parameter or
header so named: 开户账号, bankAccount, account_no, or under no, id or 号码 in
an object a key of which says bank or account, {"bank":{"no":"1202…"}}, also a parameter of a URL
written in text, its query or fragment: …/ar#acct=1202…), a person's name in pinyin (a common
surname and given name, either order: Zhang Wei, ZHANG Wei, Wei Zhang), a
person's name in characters after its role (联系人张伟, 经办人：李娜, 经办：李娜) or under a
field so named (联系人, contactName, handler, createdBy) or, with no role
before it, in a remark's field or a body of plain text (remark, memo,
备注, description, msg, 意见: 郭涛, 陈静负责, 货已到，张伟签收, 请找刘洋处理,
交给王芳; its given name of common characters: 谢谢, 金额已确认 are kept), a company's name ending in 有限公司 or 商行 (发票开给杭州恒远机械设备有限公司), a document number after its
label (发票号码：0440…, 发票代码, 单据编号:SKD…, 订单号 PO-2026-000123, invoice no.,
PO#) or under a field so named (invoiceNo, orderNo, 单据编号, fphm), a QQ number or WeChat id after its
label or under a field so named (QQ: 123456789, 微信号 wxid_…, vx: …; qq,
wechat), or
an email address (which becomes one at example.com), is replaced by its
stand-in. Stand-ins are one to one within a class.
The remote address, and the client addresses proxies add (X-Forwarded-For),
become ones of the documentation ranges (loopback stays).

In capture records each body's Content-Length (the request's, the
response's and the forward's) is corrected by what the body gained or lost
(a body that came cut short still says so), its digest headers
(Content-Digest, Repr-Digest, Digest, Content-MD5) are made again of the
new body (one naming an algorithm anonymize cannot make is dropped), and
secret headers
(credentials, tokens, API keys, signatures: the list listen masks) are
dropped from the request, the response and the forward, and so are the
query's credential parameters (?token=, access_token, api_key, sig...). In
a HAR file (a browser's export) their values are masked instead, ****, in
each entry's headers, cookies, queryString and URL (its password xxxxx, a
user without a password ****), as the inspector's HAR export has them. --resign signs each
call again with a Standard Webhooks secret; those signatures carry the time
of anonymizing, so a receiver that checks timestamps (five minutes, usually)
refuses them soon after: to replay a fixture later, sign at send time with
whsim replay --sign standard --secret whsec_... instead.

--check scans the output as anonymizing scans the input and exits 1 on any
value the run replaced that still stands anywhere, or anything that still
looks like a tax id, a mobile, a landline, an identity-card number, a bank
card number, a labelled bank account, a street address, a name in pinyin
or after its role, a labelled document number, QQ number or WeChat id, or an
email address. A report of what was replaced goes to stderr.`

// New is whsim anonymize.
func New(a *cmdutil.App) *cobra.Command {
	opts := &anonymizeOptions{}
	cmd := &cobra.Command{
		Use:   "anonymize --key <key> [<file>...|-] [--out <file|dir>] [--resign <whsec_...>] [--check]",
		Short: "Replace the names, tax ids and document numbers in captured calls, for sharing",
		Long:  helpLong,
		Example: `  whsim anonymize --key "$KEY" calls.ndjson > fixtures/calls.ndjson
  whsim anonymize monday.ndjson tuesday.ndjson --out fixtures/     # the key from WHSIM_ANONYMIZE_KEY
  whsim anonymize --key "$KEY" --check --resign whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw calls.ndjson --out shared.ndjson
  whsim generate --event all | whsim anonymize --key "$KEY" -`,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runAnonymize(cmd.Context(), a, opts)
		}),
		ValidArgsFunction: cmdutil.CompletePayloadFiles,
	}
	f := cmd.Flags()
	f.StringVar(&opts.Key, "key", "", "the anonymization key, at least 16 bytes (also WHSIM_ANONYMIZE_KEY; never printed)")
	f.StringVarP(&opts.Out, "out", "o", "", "write to this file, or into this directory one file per input (default stdout)")
	_ = cmd.RegisterFlagCompletionFunc("out", cmdutil.CompleteFiles)
	f.StringVar(&opts.Resign, "resign", "", "sign capture records again with this Standard Webhooks secret (whsec_...); the signatures go stale (timestamp: now), so prefer replay --sign")
	f.BoolVar(&opts.Check, "check", false, "exit 1 if the output still holds a value the run replaced, or something that looks like a tax id, mobile, landline, identity-card number, bank card number, labelled bank account, street address, name in pinyin or after its role, labelled document number, QQ number or WeChat id, or email address")
	return cmd
}

func runAnonymize(ctx context.Context, a *cmdutil.App, opts *anonymizeOptions) error {
	if opts.Key == "" {
		return cmdutil.Usagef("--key: give one (or WHSIM_ANONYMIZE_KEY), a random secret of at least 16 bytes, e.g. openssl rand -hex 16")
	}
	an, err := anonymize.New([]byte(opts.Key))
	if err != nil {
		return cmdutil.Usagef("--key: %w", err)
	}
	aopts := anonymize.Options{Now: a.Now, Check: opts.Check}
	if opts.Resign != "" {
		if aopts.Resign, err = sign.NewSigner(opts.Resign); err != nil {
			return cmdutil.Usagef("--resign: %w", err)
		}
	}
	files := inputsOf(opts)
	target, err := anonymize.NewTarget(opts.Out, files)
	if _, ok := errors.AsType[*anonymize.TargetError](err); ok {
		return cmdutil.Usagef("--out %w", err)
	} else if err != nil {
		return err // the directory could not be made
	}
	sayStdinRead(a, files)
	// Several inputs are all read before the first is written: a value
	// only a later one marks is replaced in an earlier one too.
	stdin := a.Streams.In
	if len(files) > 1 {
		for _, name := range files {
			var err error
			if name == "-" {
				var done func()
				stdin, done, err = an.LearnStdin(ctx, stdin, aopts)
				defer done()
			} else {
				err = an.Learn(ctx, name)
			}
			if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
				it := anonymizeout.Interrupted{In: ctxio.InputName(name), Reading: true}
				fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("whsim:"), it)
				return cmdutil.ErrInterrupted
			}
			if err != nil {
				return anonymizeErr(err)
			}
		}
	}
	total := &anonymize.Stats{Replaced: anonymize.Report{}, Dropped: map[string]int{}}
	var written []string
	for i, name := range files {
		st, err := an.File(ctx, name, stdin, a.Streams.Out, target, aopts)
		if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// Said as send and validate say theirs: exit 130 alone left
			// the user to guess which files were written.
			it := anonymizeout.Interrupted{In: ctxio.InputName(name), Out: target.Dest(name), Written: written, Left: len(files) - i - 1}
			fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("whsim:"), it)
			return cmdutil.ErrInterrupted
		}
		if err != nil {
			return anonymizeErr(err)
		}
		if dest := target.Dest(name); dest != "" && target.Dir {
			written = append(written, dest)
		}
		total.Add(st)
		for _, torn := range st.Torn {
			fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("warning:"), anonymizeout.Torn(name, torn))
		}
		for _, l := range st.Leaks {
			fmt.Fprintf(a.Streams.Err, "%s %s:%d: still looks like a %s: %s\n",
				a.ErrColor.Fail.Sprint("leak:"), ctxio.InputName(name), l.Line, l.Kind, termsafe.Text(l.Text))
		}
	}
	anonymizeout.WriteAnonymizeReport(a.Streams.Err, total, opts.Resign != "")
	if len(total.Leaks) > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: fmt.Errorf("--check: %d value(s) in the output still look like identifiers", len(total.Leaks))}
	}
	return nil
}

// inputsOf is the inputs opts names: stdin ("-") when none.
func inputsOf(opts *anonymizeOptions) []string {
	if len(opts.Files) == 0 {
		return []string{"-"}
	}
	return opts.Files
}

// sayStdinRead says on stderr that stdin is read when it is a terminal,
// as validate says it: without a file, a terminal was read without a
// word, and a user waited on a silent prompt.
func sayStdinRead(a *cmdutil.App, files []string) {
	if a.Streams.InTTY && slices.Contains(files, "-") {
		fmt.Fprintln(a.Streams.Err, "whsim: reading payloads or capture records from stdin; Ctrl-D to end")
	}
}

// anonymizeErr maps an input that cannot be read, or an output file that
// cannot be made, to a usage error (exit 2: nothing was anonymized).
func anonymizeErr(err error) error {
	if _, ok := errors.AsType[*anonymize.TargetError](err); ok {
		return cmdutil.Usagef("--out %w", err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	_, input := errors.AsType[*anonymize.InputError](err)
	_, path := errors.AsType[*os.PathError](err)
	_, open := errors.AsType[*ctxio.OpenError](err)
	if input || path || open {
		return cmdutil.UsageErr(err)
	}
	return err
}

package shellcmd

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/termsafe"
)

// Curl is a curl command that sends a call again, as whsim prints it for a
// user to paste: check's reproductions, the probe's question, the
// inspector's copy as curl. It holds the call as it went, credentials and
// all; String applies the one rule for what a printed command hides:
//
//   - the URL as termsafe.URLString shows any URL: a password, a user
//     without a password (a token) and the values of credential query
//     parameters masked;
//   - a header the user supplied (Header) that termsafe.SecretHeader names
//     masked with termsafe.Mask: printed commands end up in CI logs;
//   - a header the call carries of its own (Own), such as a signature
//     computed for this one body, kept: it is no secret of the user's,
//     and the command sends the same call only with it.
//
// With Vars, a command meant to run again as printed, each credential of
// the first two is a variable the shell fills in instead (URLWord,
// VarHeader): never shown, and sent where the variable is set.
type Curl struct {
	// Flags are curl's own flags, right after "curl": -sS, -i, the run's
	// TLS flags (-k, --cacert FILE), -o /dev/null.
	Flags []string
	// Method is -X's; "" leaves it to curl (GET, POST with a body).
	Method string
	URL    string
	// Header are the user's headers; a credential among them is masked.
	Header http.Header
	// Own are the call's own headers, kept; a name here replaces the
	// user's header of that name, as the call did.
	Own http.Header
	// Body is sent with --data-binary, an empty one too, unless NoBody
	// (with --data-raw when it starts with @, which --data-binary reads as
	// a file's name).
	Body   []byte
	NoBody bool
	// BodyFile is the file the body is read from (curl's stdin) when it
	// is not printed inline: longer than MaxInline bytes, or not UTF-8 text
	// a terminal shows as it is (a shell word cannot carry every byte, and
	// a tab or a CR would go as printf escapes, a subshell each).
	BodyFile  string
	MaxInline int
	// Copies above 1 send the call that many times in a loop; AtOnce
	// sends them in the background, all at once.
	Copies int
	AtOnce bool
	// Note is a comment after the command (# …), to say what it cannot.
	Note string
	// OneLine keeps the command on one line: an inline body's line breaks
	// go through printf into curl's stdin rather than inside its quotes.
	// A go test log indents every line of a message after its first, so a
	// body printed across lines came back from it with that indentation
	// in it (whsimtest's reproduce commands).
	OneLine bool
	// Vars gives each credential as a variable, as Whsim's Vars does;
	// each variable's name starts with VarPrefix (PROBE_ for a probe's
	// question, whose credentials are not the receiver's).
	Vars      bool
	VarPrefix string
	// Plain are query parameters whose values whsim filled in itself (a
	// probe's {code}): with Vars they are printed as they are whatever
	// their name (code, key), since they are no credential of the user's
	// and the command asks about that document only with them.
	Plain []string
}

// Inline says whether the body is printed in the command rather than read
// from BodyFile.
func (c *Curl) Inline() bool {
	return len(c.Body) <= c.MaxInline && utf8.Valid(c.Body) && unprintedAt(string(c.Body)) < 0
}

// String is the command, ready to paste into a POSIX shell: every word
// from the call quoted (Quote), curl's flags as words (Word).
func (c *Curl) String() string {
	var b strings.Builder
	if c.Copies > 1 {
		fmt.Fprintf(&b, "for i in $(seq %d); do ", c.Copies)
	}
	piped := c.OneLine && c.Inline() && strings.Contains(string(c.Body), "\n")
	if piped {
		b.WriteString(printfLines(string(c.Body)) + " | ")
	}
	b.WriteString("curl" + Words(c.Flags))
	switch {
	case c.Method == http.MethodHead && c.NoBody:
		// -X HEAD has curl wait for the body the answer's Content-Length
		// announces, which a HEAD answer never sends: the command hung
		// until the server gave up. --head reads no body.
		b.WriteString(" --head")
	case c.Method != "":
		b.WriteString(" -X " + Word(c.Method))
	}
	if strings.ContainsAny(c.URL, "[]{}") {
		// curl reads [1-3] and {a,b} in a URL as globs: a query such as
		// items[0]=x made it fail (exit 3), b={x,y} sent two calls.
		b.WriteString(" --globoff")
	}
	if c.Vars {
		b.WriteString(" " + urlVarsWord(c.URL, c.VarPrefix, c.Plain))
	} else {
		b.WriteString(" " + urlWord(c.URL, false, ""))
	}
	for _, h := range headerLines(c.Header, c.Own, c.Vars, c.VarPrefix) {
		b.WriteString(" -H " + h)
	}
	switch {
	case c.NoBody:
	case piped:
		b.WriteString(" --data-binary @-")
	case c.Inline() && strings.HasPrefix(string(c.Body), "@"):
		// --data-binary takes a word starting with @ for a file to read
		// and sends that file: a body "@/etc/passwd" went as the user's
		// file. --data-raw (curl 7.43) sends the word as it is.
		b.WriteString(" --data-raw " + Quote(string(c.Body)))
	case c.Inline():
		b.WriteString(" --data-binary " + Quote(string(c.Body)))
	default:
		// From stdin, the shell opening the file: a file that is not
		// there (check's BODY_FILE placeholder, a saved case's path from
		// another directory) stops the command, where curl's own
		// --data-binary @FILE sent an empty body, its warning silenced
		// by -s, and the command's answer read as the call's.
		b.WriteString(" --data-binary @- <" + Word(c.BodyFile))
	}
	switch {
	case c.Copies > 1 && c.AtOnce:
		b.WriteString(" & done; wait")
	case c.Copies > 1:
		b.WriteString("; done")
	}
	b.WriteString(comment(c.Note))
	return b.String()
}

// printfLines is a printf command, on one line, that writes s byte for
// byte: each of its lines an argument (Quote), the line breaks in the
// format, which is whsim's own text, so no byte of s is read as a printf
// directive or escape. s holds no CR: a body with one is no Inline body.
func printfLines(s string) string {
	lines := strings.Split(s, "\n")
	args := make([]string, len(lines))
	for i, l := range lines {
		args[i] = Quote(l)
	}
	return "printf '" + strings.Repeat(`%s\n`, len(lines)-1) + "%s' " + strings.Join(args, " ")
}

// headerLines are -H's words: user's headers, a credential among them
// masked (or, with vars, its variable, prefix starting its name), and
// own's, kept, a name in own replacing user's (Split's rule: own the same
// as user's is user's); sorted by name.
func headerLines(user, own http.Header, vars bool, prefix string) []string {
	var out []string
	names := slices.Sorted(maps.Keys(user))
	for k := range own {
		if _, ok := user[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if vs, ok := own[k]; ok && !usersOwn(user, k, vs) {
			for _, v := range vs {
				out = append(out, Quote(k+": "+v))
			}
			continue
		}
		for _, v := range user[k] {
			switch {
			case !termsafe.SecretHeader(k):
				out = append(out, Quote(k+": "+v))
			case vars:
				out = append(out, VarHeader(k, prefix))
			default:
				out = append(out, Quote(k+": "+termsafe.Mask(k, v)))
			}
		}
	}
	return out
}

// Split parts the headers a call sent into the user's (given with -H,
// and still as given) and the call's own (its content type, a signature
// of its body, a header a case set in place of the user's). The one rule
// for what whsim prints of a call then follows: a credential among the
// user's is masked, the call's own is kept, since it is no secret of the
// user's and the call is the same call only with it.
func Split(sent, user http.Header) (given, own http.Header) {
	given, own = http.Header{}, http.Header{}
	for k, vs := range sent {
		if usersOwn(user, k, vs) {
			given[k] = vs
		} else {
			own[k] = vs
		}
	}
	return given, own
}

// usersOwn says whether a header k the call sent with values vs is the
// user's: given with -H, and still as given.
func usersOwn(user http.Header, k string, vs []string) bool {
	uv, ok := user[k]
	return ok && slices.Equal(vs, uv)
}

// Masked is sent as reports and saved reproductions show it: Split's
// rule, a credential among the user's headers masked and the call's own
// kept.
func Masked(sent, user http.Header) http.Header {
	out := make(http.Header, len(sent))
	for k, vs := range sent {
		mask := usersOwn(user, k, vs) && termsafe.SecretHeader(k)
		for _, v := range vs {
			if mask {
				v = termsafe.Mask(k, v)
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// HeaderVar is the variable a printed command reads a header's value
// from: X-Api-Key is $X_API_KEY. A name that would start with a digit
// starts with _, as a shell variable's name must not: 2fa-Token is
// $_2FA_TOKEN.
func HeaderVar(name string) string {
	v := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		v = "_" + v
	}
	return v
}

// shellSets are variables the shell sets or reads itself: a credential
// given in one would be the shell's value (sh sets PWD to the working
// directory whatever the environment says: ?pwd= sent the path), or
// change how the shell runs (PATH, IFS). A credential's variable of such a
// name takes varSuffix.
var shellSets = []string{
	"BASH", "BASHOPTS", "BASHPID", "BASH_ENV", "CDPATH", "COLUMNS", "ENV", "EUID", "FCEDIT", "GROUPS",
	"HISTFILE", "HOME", "HOSTNAME", "IFS", "LANG", "LINENO", "LINES", "LOGNAME", "MAIL", "MAILPATH",
	"OLDPWD", "OPTARG", "OPTIND", "PATH", "PPID", "PS1", "PS2", "PS3", "PS4", "PWD", "RANDOM",
	"REPLY", "SECONDS", "SHELL", "SHELLOPTS", "SHLVL", "SRANDOM", "TERM", "TMPDIR", "UID", "USER",
}

const varSuffix = "_VALUE"

// varName is the variable a printed command reads a credential from:
// prefix and the name HeaderVar makes of name, with varSuffix when the
// shell has a variable of that name.
func varName(prefix, name string) string {
	v := prefix + HeaderVar(name)
	if slices.Contains(shellSets, v) || strings.HasPrefix(v, "BASH_") || strings.HasPrefix(v, "LC_") {
		v += varSuffix
	}
	return v
}

// VarHeader is a header as one word whose value the shell fills in from
// the variable varName names, after prefix: "Name: $NAME". A name the
// shell would read into (a $ or ` is allowed in one) is single-quoted
// apart.
func VarHeader(name, prefix string) string {
	v := varName(prefix, name)
	if Word(name) == name {
		return `"` + name + `: $` + v + `"`
	}
	return Quote(name+": ") + `"$` + v + `"`
}

// Whsim is a whsim command line that sends calls again (whsim replay,
// whsim send, whsim check), under Curl's rule for what it hides: the URL
// masked as termsafe.URLString masks it, a credential among the user's
// headers masked, the call's own headers kept.
type Whsim struct {
	// Command is the subcommand and what comes before --url, as shell
	// text its caller wrote: "replay 'cases/x.ndjson'", "send".
	Command string
	URL     string
	// Flags come after the URL, each a word (Word).
	Flags []string
	// Header and Own are the -H flags, as Curl's.
	Header, Own http.Header
	// Vars gives a credential among Header as the variable HeaderVar
	// names ("Authorization: $AUTHORIZATION"), and one in URL as URLWord
	// does, which the shell fills in, rather than masked: for a command
	// meant to run again, as printed, with the user's own values. Its
	// value is not printed either way.
	Vars bool
	// Tail is shell text after the -H flags, as its caller wrote it: a
	// flag whose value the shell fills in (--secret "$VAR").
	Tail string
	// Note is a comment after the command (# …).
	Note string
}

// String is the command, ready to paste into a POSIX shell.
func (w *Whsim) String() string {
	var b strings.Builder
	b.WriteString("whsim " + w.Command)
	if w.URL != "" {
		b.WriteString(" --url " + urlWord(w.URL, w.Vars, ""))
	}
	b.WriteString(Words(w.Flags))
	for _, h := range headerLines(w.Header, w.Own, w.Vars, "") {
		b.WriteString(" -H " + h)
	}
	if w.Tail != "" {
		b.WriteString(" " + w.Tail)
	}
	b.WriteString(comment(w.Note))
	return b.String()
}

// comment is note as a comment ending a command line, on that one line:
// a line break would end the comment and run what follows it.
func comment(note string) string {
	if note == "" {
		return ""
	}
	return "  # " + strings.NewReplacer("\r", " ", "\n", " ").Replace(note)
}

// urlWord is u as a word of a printed command: its credentials as
// variables (URLWord) with vars, else masked as termsafe.URLString masks
// them.
func urlWord(u string, vars bool, prefix string) string {
	if vars {
		return URLWord(u, prefix)
	}
	return Quote(termsafe.URLString(u))
}

// passwordVar is the variable a printed command reads a URL's password
// from; userVar the one it reads a URL's user from when the user has no
// password, the token of https://TOKEN@host.
const (
	passwordVar = "URL_PASSWORD"
	userVar     = "URL_USER"
)

// URLWord is u as one word of a command meant to run again as printed
// (Whsim.Vars): each credential in it a variable the shell fills in, a
// password as $URL_PASSWORD, a user without a password (a token) as
// $URL_USER and the value of a query parameter
// termsafe.SecretQuery names as the variable HeaderVar makes of its name
// (?token= is $TOKEN), each name after prefix, each holding the value as
// it stands in the URL; every other byte as it is. So the command sends
// the same call where the variables are set, and never shows a credential,
// also one read back masked (****). A URL with none is Quote(u).
func URLWord(u, prefix string) string {
	return urlVarsWord(u, prefix, nil)
}

// urlVarsWord is URLWord with the query parameters plain names printed as
// they are.
func urlVarsWord(u, prefix string, plain []string) string {
	if !termsafe.HasCredential(u) {
		return Quote(u)
	}
	// The word is literal runs, each quoted once, between the variables.
	var b, run strings.Builder
	lit := func(s string) { run.WriteString(s) }
	variable := func(name string) {
		if run.Len() > 0 {
			b.WriteString(Quote(run.String()))
			run.Reset()
		}
		b.WriteString(`"$` + name + `"`)
	}
	rest, fragment, hasFragment := strings.Cut(u, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	if start, end, mask, ok := termsafe.UserinfoSpan(base); ok {
		lit(base[:start])
		if mask == termsafe.UserMask {
			variable(prefix + userVar)
		} else {
			variable(prefix + passwordVar)
		}
		base = base[end:]
	}
	lit(base)
	if hasQuery {
		lit("?")
		for i, p := range strings.Split(query, "&") {
			if i > 0 {
				lit("&")
			}
			k, v, ok := strings.Cut(p, "=")
			if !ok || !termsafe.SecretParam(k, v) || slices.Contains(plain, termsafe.QueryKey(k)) {
				lit(p)
				continue
			}
			lit(k + "=")
			variable(varName(prefix, termsafe.QueryKey(k)))
		}
	}
	if hasFragment {
		lit("#" + fragment)
	}
	if run.Len() > 0 {
		b.WriteString(Quote(run.String()))
	}
	return b.String()
}

package shellcmd

import (
	"strings"

	"github.com/whsim/whsim/internal/termsafe"
)

// credentialMask stands for a credential's value in a command whsim shows,
// as it does for a URL's password.
const credentialMask = "xxxxx"

// MaskCredentials is a shell command (a user's --probe-cmd) as whsim may
// write it where others read it (reports, JUnit, the job summary, CI
// logs): each credential written literally in it masked, and whether
// there was one. It finds what such commands carry: a URL's password or
// token (postgres://u:PASS@h), a variable or option of a credential's
// name set to a value (PGPASSWORD=PASS, password=PASS in a libpq
// connection string, --token=PASS or --password PASS), a credential
// header (-H 'Authorization: Bearer PASS'), curl's -u user:PASS, and the
// one-letter password options of database clients (mysql -pPASS,
// redis-cli -a PASS, mongosh -p PASS, sqlcmd -P PASS, sshpass -p PASS). A
// value read from the environment ($PGPASSWORD, "$TOKEN") is none: the
// command shows no secret there. It errs on the side of masking: a
// command masked shows less, one missed shows a password.
func MaskCredentials(cmd string) (masked string, found bool) {
	var b strings.Builder
	last := 0
	for i := 0; i < len(cmd); {
		start, end := credentialAt(cmd, i, func() string { return b.String() + cmd[last:i] })
		if end > start && end < len(cmd) && cmd[end-1] == '\\' && (cmd[end] == '"' || cmd[end] == '\'') {
			// A backslash before a quote escapes it for a shell inside the
			// command (sh -c "probe \"token=PASS\""): no part of the value.
			// Masked with it, the quote would be read, masked again, as
			// one that opens a value running on to the end.
			end--
		}
		if end <= start {
			i++
			continue
		}
		if literal(cmd[start:end]) {
			b.WriteString(cmd[last:start])
			b.WriteString(credentialMask)
			last = end
			found = true
		}
		i = end
	}
	if !found {
		return cmd, false
	}
	b.WriteString(cmd[last:])
	return b.String(), true
}

// credentialAt is the span of a credential's value the text at cmd[i]
// starts, empty (end <= start) when it starts none; before is cmd[:i] as
// masked so far.
func credentialAt(cmd string, i int, before func() string) (start, end int) {
	rest := cmd[i:]
	switch {
	case strings.HasPrefix(rest, "://"):
		// The URL's userinfo: from after :// to its end (a blank, a quote
		// or a path).
		j := i + 3
		k := j + strings.IndexFunc(cmd[j:]+" ", func(r rune) bool { return strings.ContainsRune(" \t\n'\"/?#;&|)<>", r) })
		if s, e, _, ok := termsafe.UserinfoSpan("x://" + cmd[j:k]); ok {
			return j + s - 4, j + e - 4
		}
		return 0, 0
	case !wordStart(cmd, i) && (i == 0 || !strings.ContainsRune("'\"", rune(cmd[i-1]))):
		return 0, 0
	}
	// A word: an option (-u user:PASS, --password PASS, --token=PASS), an
	// assignment (PGPASSWORD=PASS, password=PASS), or a header line
	// (Authorization: Bearer PASS).
	name := rest
	dashes := len(name) - len(strings.TrimLeft(name, "-"))
	name = name[dashes:]
	n := 0
	for n < len(name) && (name[n] == '_' || name[n] == '-' || 'A' <= name[n] && name[n] <= 'Z' || 'a' <= name[n] && name[n] <= 'z' || '0' <= name[n] && name[n] <= '9') {
		n++
	}
	word, after := name[:n], name[n:]
	at := i + dashes + n // where after starts in cmd
	if dashes == 1 && word != "" {
		if s, e, ok := shortPasswordAt(cmd, i, before()); ok {
			return s, e
		}
	}
	switch {
	case word == "":
		return 0, 0
	case dashes == 1 && strings.HasPrefix(word, "u"):
		// curl's -u user:PASS or -uuser:PASS: the password after the user.
		// Joined to -u, the user may hold what no option name does (an
		// email address, a dot): the value runs on from -u to where a
		// shell word ends, not to the end of the word read as a name.
		v0 := at
		if word == "u" {
			v0 = skipBlanks(cmd, at)
		} else {
			v0 = i + 1 + 1 // after -u
		}
		return userPasswordAt(cmd, v0)
	case dashes == 2 && word == "user":
		return userPasswordAt(cmd, skipBlanks(cmd, at+strings.IndexFunc(after+" ", func(r rune) bool { return r != '=' })))
	case dashes == 0 && strings.HasPrefix(after, ":") && termsafe.SecretHeader(word):
		// A header line: its value to the end of the word it is quoted
		// in, or of the line.
		vs := skipBlanks(cmd, at+1)
		ve := vs + strings.IndexFunc(cmd[vs:]+"\n", func(r rune) bool { return strings.ContainsRune("\n'\"", r) })
		return vs, ve
	case !credentialName(word):
		return 0, 0
	case strings.HasPrefix(after, "="):
		return valueAt(cmd, at+1)
	case dashes == 2 && (strings.HasPrefix(after, " ") || strings.HasPrefix(after, "\t")):
		vs := skipBlanks(cmd, at)
		if vs < len(cmd) && cmd[vs] == '-' {
			return 0, 0 // the next option: this one takes no value here
		}
		return valueAt(cmd, vs)
	}
	return 0, 0
}

// userPasswordAt is the span of the password in the user:PASS value at
// cmd[i] (curl's -u and --user), empty when it has none. A URL there is
// no user:PASS (redis-cli -u redis://user:PASS@host): its first colon is
// the scheme's, and the user, host and command after it would go masked
// with the password; the "://" it holds masks its password alone, as a
// URL anywhere else is masked.
func userPasswordAt(cmd string, i int) (start, end int) {
	vs, ve := valueAt(cmd, i)
	if hasScheme(cmd[vs:ve]) {
		return 0, 0
	}
	if c := strings.IndexByte(cmd[vs:ve], ':'); c >= 0 {
		return vs + c + 1, ve
	}
	return 0, 0
}

// hasScheme says v starts with a URL's scheme and "://" (RFC 3986: a
// letter, then letters, digits, +, - and .). A user name holds no "://"
// after such a word: a colon ends it.
func hasScheme(v string) bool {
	scheme, _, ok := strings.Cut(v, "://")
	if !ok || scheme == "" || !('A' <= scheme[0] && scheme[0] <= 'Z' || 'a' <= scheme[0] && scheme[0] <= 'z') {
		return false
	}
	return strings.IndexFunc(scheme, func(r rune) bool {
		return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '+' || r == '-' || r == '.')
	}) < 0
}

// shortPasswordAt is the span of the password a one-letter option at
// cmd[i] (a dash, then the letter) gives to the program it is written
// for: mysql's -pPASS, redis-cli's -a PASS, sshpass's -p PASS. ok is
// false when the option is no such one. The same letter is something
// else to other programs (psql's -p is a port), so the program decides:
// the last word before the option, in its part of a pipeline or list,
// that names one (docker exec db mysql -pPASS, sshpass -p PASS ssh h).
// The words are read in before, cmd[:i] as masked so far: a password
// masked there may have held a ; or a (, and the masked command must
// read the same when it is masked again.
func shortPasswordAt(cmd string, i int, before string) (start, end int, ok bool) {
	letter, joinedOnly := byte(0), false
	part := before
	if k := strings.LastIndexAny(part, ";|&(\n`"); k >= 0 {
		part = part[k+1:]
	}
	for _, w := range strings.Fields(part) {
		w = strings.Trim(w, `'"`)
		if l, j, known := passwordOption(w[strings.LastIndexByte(w, '/')+1:]); known {
			letter, joinedOnly = l, j
		}
	}
	if letter == 0 || i+1 >= len(cmd) || cmd[i+1] != letter {
		return 0, 0, false
	}
	if v := i + 2; v < len(cmd) && !strings.ContainsRune(" \t\n;&|()<>", rune(cmd[v])) {
		start, end = valueAt(cmd, v) // joined: -pPASS, -p'PASS'
		return start, end, true
	}
	if joinedOnly {
		return 0, 0, false // mysql's -p alone asks; the next word is the database
	}
	v := skipBlanks(cmd, i+2)
	if v >= len(cmd) || cmd[v] == '-' {
		return 0, 0, false
	}
	start, end = valueAt(cmd, v)
	return start, end, true
}

// passwordOption is the letter of a program's option that takes a
// password, and whether the password must be joined to it (-pPASS);
// known says whsim knows the program's one-letter options at all: the
// clients whose -p is a port (psql, ssh) are known to have none, so that
// sshpass -p PASS ssh h psql -p 5432 masks the first -p only.
func passwordOption(program string) (letter byte, joinedOnly, known bool) {
	switch program {
	case "mysql", "mysqldump", "mysqladmin", "mysqlshow", "mysqlcheck", "mysqlimport",
		"mariadb", "mariadb-dump", "mariadb-admin", "mariadb-show", "mariadb-check", "mariadb-import":
		return 'p', true, true
	case "redis-cli", "valkey-cli", "keydb-cli":
		return 'a', false, true
	case "mongosh", "mongo", "mongodump", "mongoexport", "mongorestore", "mongoimport", "sshpass":
		return 'p', false, true
	case "sqlcmd", "bcp":
		return 'P', false, true
	case "psql", "pg_dump", "pg_restore", "pg_isready", "clickhouse-client", "ssh", "scp", "sftp":
		return 0, false, true
	}
	return 0, false, false
}

// credentialName says a variable's or option's name is a credential's:
// one holding password, token, secret, an API or access key (PGPASSWORD,
// api_key, AUTH_TOKEN), or with a part pass, pwd, pw, auth, bearer,
// cookie, session or signature (MYSQL_PWD, --pass, --auth, curl's
// --oauth2-bearer and --cookie), as SecretHeader reads a header's name,
// but not the shell's PWD and OLDPWD, the working directory. Parts, not
// substrings, for the short words: --author and --passage are none.
func credentialName(name string) bool {
	switch strings.ToUpper(name) {
	case "PWD", "OLDPWD":
		return false
	}
	lower := strings.ToLower(name)
	for _, w := range [...]string{"password", "passwd", "token", "secret", "api-key", "api_key", "apikey",
		"access-key", "access_key", "private-key", "private_key", "credential"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(lower, func(r rune) bool { return r == '_' || r == '-' }) {
		switch part {
		case "pass", "pwd", "pw", "auth", "authorization", "oauth2", "bearer", "cookie", "session", "signature":
			return true
		}
	}
	return false
}

// valueAt is the span of the value at cmd[i]: a quoted string's inside,
// or the rest of an unquoted word.
func valueAt(cmd string, i int) (start, end int) {
	if i >= len(cmd) {
		return i, i
	}
	if cmd[i] == '\\' && i+1 < len(cmd) && (cmd[i+1] == '"' || cmd[i+1] == '\'') {
		// An escaped quote, inside a quoted command (sh -c "mysql
		// -p\"$PW\""): the value runs to the next one.
		if j := strings.Index(cmd[i+2:], cmd[i:i+2]); j >= 0 {
			return i + 2, i + 2 + j
		}
		return i + 2, len(cmd)
	}
	if q := cmd[i]; q == '\'' || q == '"' {
		if j := strings.IndexByte(cmd[i+1:], q); j >= 0 {
			return i + 1, i + 1 + j
		}
		return i + 1, len(cmd)
	}
	j := strings.IndexFunc(cmd[i:]+" ", func(r rune) bool { return strings.ContainsRune(" \t\n'\";&|()<>", r) })
	return i, i + j
}

// skipBlanks is the index of the first byte at or after i that is no
// blank.
func skipBlanks(cmd string, i int) int {
	for i < len(cmd) && (cmd[i] == ' ' || cmd[i] == '\t') {
		i++
	}
	return i
}

// literal says a credential's value is written in the command, not read
// from the environment or another command ($VAR, `cmd`), nor empty.
func literal(v string) bool {
	return strings.TrimSpace(v) != "" && !strings.ContainsAny(v, "$`")
}

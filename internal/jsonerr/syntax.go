package jsonerr

import (
	"strconv"
)

// SyntaxError is where a text stops being JSON and why, in encoding/json's
// words as Go 1.26 wrote them: whsim's messages (input's line:column,
// probe's "at byte N") are built on those words and that offset. Go 1.27's
// encoding/json runs on json/v2 and places and words the same faults
// differently (past a multi-byte character, a byte-order mark as U+FEFF,
// an invalid byte as '\xff'), so whsim finds them itself, the same
// whichever Go built it.
type SyntaxError struct {
	// Msg is encoding/json's: "invalid character 'x' looking for
	// beginning of value", "unexpected end of JSON input". The character
	// is the byte it stopped at, quoted as if it were Latin-1 ('ÿ' for
	// 0xff): callers say it better, knowing the bytes.
	Msg string
	// Offset is the count of bytes read when it stopped: the offending
	// byte's index plus one, or the text's length when it ended early.
	Offset int64
	// AtByte says it stopped at a byte of the text, Byte (b[Offset-1]),
	// which Msg quotes; false when the text ended first (Msg names the
	// space encoding/json reads past the end, or says the input ended).
	AtByte bool
	Byte   byte
	// Context is what Msg says was expected there, after the quoted
	// character ("looking for beginning of value"); "" when Msg says the
	// input ended. Callers naming the byte better compose with it.
	Context string
}

func (e *SyntaxError) Error() string { return e.Msg }

// maxDepth is encoding/json's bound on nested arrays and objects.
const maxDepth = 10000

// FirstSyntaxError is the first place b is not one JSON value (spaces
// around it allowed), nil when b is: what encoding/json's checkValid
// (Valid, Unmarshal) says of it. Any byte from 0x20 is taken in a string,
// as encoding/json takes invalid UTF-8 there.
func FirstSyntaxError(b []byte) *SyntaxError {
	s := syntaxScan{b: b}
	if err := s.value(0); err != nil {
		return err
	}
	s.spaces()
	if s.i < len(s.b) {
		return s.fault("after top-level value")
	}
	return nil
}

// syntaxScan reads b from i by recursive descent: each place says what
// it expected when the byte there does not fit.
type syntaxScan struct {
	b []byte
	i int
}

// fault is the byte at i not fitting what was expected. At the end of
// the text encoding/json reads one space more: a place a space ends
// (after a value, in a string, between tokens) ends early, one a space
// does not fit (inside a number or a literal, after an escape's
// backslash) is faulted on that space.
func (s *syntaxScan) fault(context string) *SyntaxError {
	if s.i >= len(s.b) {
		return s.end(context, false)
	}
	return &SyntaxError{Msg: "invalid character " + quoteChar(s.b[s.i]) + " " + context, Offset: int64(s.i) + 1, AtByte: true, Byte: s.b[s.i], Context: context}
}

// end is the text ending where context was expected; spaceFits says a
// space would have been taken there.
func (s *syntaxScan) end(context string, spaceFits bool) *SyntaxError {
	if spaceFits {
		return &SyntaxError{Msg: "unexpected end of JSON input", Offset: int64(len(s.b))}
	}
	return &SyntaxError{Msg: "invalid character ' ' " + context, Offset: int64(len(s.b)), Context: context}
}

func (s *syntaxScan) spaces() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value; depth is the arrays and objects around it.
func (s *syntaxScan) value(depth int) *SyntaxError {
	s.spaces()
	if s.i >= len(s.b) {
		return s.end("", true)
	}
	switch c := s.b[s.i]; {
	case c == '{':
		if depth == maxDepth {
			return s.fault("exceeded max depth")
		}
		return s.object(depth + 1)
	case c == '[':
		if depth == maxDepth {
			return s.fault("exceeded max depth")
		}
		return s.array(depth + 1)
	case c == '"':
		return s.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fault("looking for beginning of value")
}

func (s *syntaxScan) object(depth int) *SyntaxError {
	s.i++ // {
	s.spaces()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.spaces()
		switch {
		case s.i >= len(s.b):
			return s.end("", true)
		case s.b[s.i] != '"':
			return s.fault("looking for beginning of object key string")
		}
		if err := s.str(); err != nil {
			return err
		}
		s.spaces()
		switch {
		case s.i >= len(s.b):
			return s.end("", true)
		case s.b[s.i] != ':':
			return s.fault("after object key")
		}
		s.i++
		if err := s.value(depth); err != nil {
			return err
		}
		if more, err := s.more('}', "after object key:value pair"); !more {
			return err
		}
	}
}

func (s *syntaxScan) array(depth int) *SyntaxError {
	s.i++ // [
	s.spaces()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		if more, err := s.more(']', "after array element"); !more {
			return err
		}
	}
}

// more reads what follows a member or an element: a comma, and more
// follow (true); the closer, and the object or array ends (false, nil);
// else a fault of context.
func (s *syntaxScan) more(closer byte, context string) (bool, *SyntaxError) {
	s.spaces()
	switch {
	case s.i >= len(s.b):
		return false, s.end("", true)
	case s.b[s.i] == ',':
		s.i++
		return true, nil
	case s.b[s.i] == closer:
		s.i++
		return false, nil
	}
	return false, s.fault(context)
}

func (s *syntaxScan) str() *SyntaxError {
	s.i++ // "
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			s.i++
			if err := s.escape(); err != nil {
				return err
			}
			continue
		case c < 0x20:
			return s.fault("in string literal")
		}
		s.i++
	}
	return s.end("", true) // a space is taken in a string
}

// escape reads what follows a backslash.
func (s *syntaxScan) escape() *SyntaxError {
	if s.i >= len(s.b) {
		return s.end("in string escape code", false)
	}
	switch s.b[s.i] {
	case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
		s.i++
		return nil
	case 'u':
		s.i++
		for range 4 {
			if s.i >= len(s.b) || !isHex(s.b[s.i]) {
				return s.fault(`in \u hexadecimal character escape`)
			}
			s.i++
		}
		return nil
	}
	return s.fault("in string escape code")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digit says the byte at i is a digit; a fault of context when it is
// not.
func (s *syntaxScan) digit(context string) *SyntaxError {
	if s.i < len(s.b) && isDigit(s.b[s.i]) {
		return nil
	}
	return s.fault(context)
}

func (s *syntaxScan) digits() {
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
}

// number reads a number; what follows it is its container's to judge.
func (s *syntaxScan) number() *SyntaxError {
	if s.b[s.i] == '-' {
		s.i++
		if err := s.digit("in numeric literal"); err != nil {
			return err
		}
	}
	if s.b[s.i] == '0' {
		s.i++
	} else {
		s.digits()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if err := s.digit("after decimal point in numeric literal"); err != nil {
			return err
		}
		s.digits()
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if err := s.digit("in exponent of numeric literal"); err != nil {
			return err
		}
		s.digits()
	}
	return nil
}

// literal reads true, false or null, whose first letter is at i.
func (s *syntaxScan) literal(word string) *SyntaxError {
	s.i++
	for _, want := range []byte(word[1:]) {
		if s.i >= len(s.b) || s.b[s.i] != want {
			return s.fault("in literal " + word + " (expecting " + quoteChar(want) + ")")
		}
		s.i++
	}
	return nil
}

// quoteChar is encoding/json's quoting of the byte c in a message: as
// the character of its value, so a byte over 0x7f reads as a Latin-1
// letter.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

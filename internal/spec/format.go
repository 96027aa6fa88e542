package spec

// Format narrows a string or integer field. Each string format has one
// definition here: its regular expression and its length or the characters
// its values are made of (for the schema export), its checker (for the
// validator) and, where whsim makes such values, its formatter (for the
// generator).
type Format string

const (
	// UUID is 8-4-4-4-12 hex digits, any case, any version.
	UUID Format = "uuid"
	// CurrencyCode is three letters A-Z (ISO 4217 style).
	CurrencyCode Format = "currency-code"
	// UnixMillis is a non-negative integer count of milliseconds since the Unix epoch.
	UnixMillis Format = "unix-millis"
	// Decimal2 is a decimal string with exactly two fraction digits.
	Decimal2 Format = "decimal-2"
)

// The regular expressions the string formats match; Valid agrees with them.
// They are ECMA-262, as JSON Schema's pattern is, where $ is the end of the
// string; Python's re, java.util.regex, PCRE and .NET also let $ match before
// a final line break ("CNY\n"), so a pattern never goes out alone: Len or
// Foreign says what else every dialect reads the same way.
const (
	UUIDPattern         = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	CurrencyCodePattern = `^[A-Z]{3}$`
	Decimal2Pattern     = `^-?[0-9]+\.[0-9]{2}$`
)

// Decimal2Foreign finds a character that no Decimal2 value holds: anything
// but a digit, '.' and '-'. It has no anchor and no escape, so every regular
// expression dialect reads it alike.
const Decimal2Foreign = `[^-.0-9]`

// CurrencyCodeLen is the length of a CurrencyCode value.
const CurrencyCodeLen = 3

// Len is the length in characters of every value of a fixed-length string
// format, 0 for the others.
func (f Format) Len() int {
	switch f {
	case UUID:
		return UUIDLen
	case CurrencyCode:
		return CurrencyCodeLen
	}
	return 0
}

// Foreign is, for a string format whose values vary in length, a regular
// expression that finds a character none of its values holds; "" for the
// others (a fixed-length format has Len instead).
func (f Format) Foreign() string {
	if f == Decimal2 {
		return Decimal2Foreign
	}
	return ""
}

// Pattern is the regular expression of a string format, "" for the others.
func (f Format) Pattern() string {
	switch f {
	case UUID:
		return UUIDPattern
	case CurrencyCode:
		return CurrencyCodePattern
	case Decimal2:
		return Decimal2Pattern
	}
	return ""
}

// Valid reports whether v matches the string format f; it is true for a
// format without a pattern. It is hand-written rather than a regexp because
// the validator calls it on every such value.
func Valid[T string | []byte](f Format, v T) bool {
	switch f {
	case UUID:
		return validUUID(v)
	case CurrencyCode:
		return len(v) == CurrencyCodeLen && isUpper(v[0]) && isUpper(v[1]) && isUpper(v[2])
	case Decimal2:
		return validDecimal2(v)
	}
	return true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func validUUID[T string | []byte](v T) bool {
	if len(v) != UUIDLen {
		return false
	}
	for i := range len(v) {
		switch i {
		case 8, 13, 18, 23:
			if v[i] != '-' {
				return false
			}
		default:
			if !isHex(v[i]) {
				return false
			}
		}
	}
	return true
}

func validDecimal2[T string | []byte](v T) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) < 4 || v[len(v)-3] != '.' {
		return false
	}
	for i := range len(v) {
		if i != len(v)-3 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// NewUUID formats 128 random bits, hi and lo in little-endian byte order, as
// a version 4 (RFC 9562) UUID in lower-case hex.
func NewUUID(hi, lo uint64) string {
	var s [UUIDLen]byte
	return string(AppendUUID(s[:0], hi, lo))
}

// UUIDLen is the length of a UUID in its text form.
const UUIDLen = 36

// AppendUUID appends NewUUID(hi, lo) to b.
func AppendUUID(b []byte, hi, lo uint64) []byte {
	var u [16]byte
	for i := range 8 {
		u[i], u[8+i] = byte(hi>>(8*i)), byte(lo>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return b
}

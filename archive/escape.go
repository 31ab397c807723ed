package archive

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/m2m-go/m2m/internal/huge"
)

// JSON in a string: a gateway that logs each request and response as a
// string field of its own record, a container runtime's JSON log lines
// (Docker's {"log":"...\n"}), a tool call's arguments. Stored as the
// string's text, such a value is stored once only where it recurs whole:
// the system prompts and histories inside it, which recur from request to
// request, would not be. The writer so takes a string that is the JSON
// text of an object or array, escaped, apart as that text unescaped, its
// values stored as any line's are, if escaping it again in one of the
// dialects below gives back the string's text byte for byte, and stores
// it as a template
//
//	'"' | dialect | the text unescaped, with its references | '"'
//
// which a reader expands and escapes again. The dialects are those of the
// common JSON encoders: control characters as \b \f \n \r \t or \u00xx,
// and '"' and '\' escaped, as all do; then any of every rune past U+007F
// as \uXXXX (Python's json.dumps by default), '<', '>' and '&' as \u
// escapes (Go's encoding/json by default), U+2028 and U+2029 as \u
// escapes (Go's, always), upper-case hex in \u escapes (Java's encoders),
// '/' as \/ (PHP's json_encode). A string that none of them gives back is
// stored as it is. One more dialect is CSV's: a field of a CSV file (a
// warehouse's export of a log, a spreadsheet's) holding JSON text, its
// quotes doubled and nothing else escaped (appendCSV).

// A dialect's flags: the escapes it makes beyond those all make.
const (
	escASCII = 1 << iota // runes past U+007F as \uXXXX, surrogate pairs past U+FFFF
	escHTML              // '<', '>', '&' as \u escapes
	escLines             // U+2028, U+2029 as \u escapes
	escUpper             // \u escapes in upper-case hex
	escSlash             // '/' as \/
	escCSV               // CSV's: '"' as "", and nothing else (no other flag with it)
)

// A dialect is written as a letter, dialects[flags]: never a marker, a
// quote or a byte of JSON's structure. CSV's is the letter after them.
const dialects = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg"

// dialectFlags returns the flags of dialect letter c.
func dialectFlags(c byte) (flags byte, ok bool) {
	i := strings.IndexByte(dialects, c)
	return byte(i), i >= 0
}

// mayEscape marks the bytes some dialect escapes: '"', '\', control
// characters always, '/', '<', '>', '&' and bytes past 0x7F in some.
var mayEscape = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte("\"\\/<>&") {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// appendEscaped appends the string text of x in the dialect of flags to
// dst, quotes not included, stopping once dst is longer than limit (a
// reader's bound on a record).
func appendEscaped(dst, x []byte, flags byte, limit int) []byte {
	if flags == escCSV {
		for len(dst) <= limit {
			i := bytes.IndexByte(x, '"')
			if i < 0 {
				return append(dst, x...)
			}
			dst = append(append(dst, x[:i+1]...), '"')
			x = x[i+1:]
		}
		return dst
	}
	hex := "0123456789abcdef"
	if flags&escUpper != 0 {
		hex = "0123456789ABCDEF"
	}
	u := func(dst []byte, r rune) []byte {
		return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && !mayEscape[x[j]] {
			j++
		}
		dst = append(dst, x[i:j]...)
		if j == len(x) || len(dst) > limit {
			return dst
		}
		i = j + 1
		switch c := x[j]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = u(dst, rune(c))
		case c == '/':
			if flags&escSlash != 0 {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		case c < 0x80: // '<', '>', '&'
			if flags&escHTML != 0 {
				dst = u(dst, rune(c))
			} else {
				dst = append(dst, c)
			}
		default:
			r, n := utf8.DecodeRune(x[j:])
			switch {
			case r == utf8.RuneError && n == 1:
				dst = append(dst, c) // not UTF-8: as it is
			case flags&escLines != 0 && (r == '\u2028' || r == '\u2029'),
				flags&escASCII != 0 && r <= 0xFFFF:
				dst = u(dst, r)
			case flags&escASCII != 0:
				r -= 0x10000
				dst = u(u(dst, 0xD800+r>>10), 0xDC00+r&0x3FF)
			default:
				dst = append(dst, x[j:j+n]...)
			}
			i = j + n
		}
	}
	return dst
}

// appendUnescaped appends the text s stands for, s a string's text
// between its quotes, to dst, and reports the dialect in which escaping it
// again (into *back, scratch) gives s back; ok is false, and dst as it
// was, where none does, or where the text would hold a byte the format
// uses as a marker.
func appendUnescaped(dst, s []byte, back *[]byte) (_ []byte, dialect byte, ok bool) {
	start := len(dst)
	var flags byte
	lower := false
	// hex reads a \u escape's four digits, noting their case.
	hex := func(p []byte) (rune, bool) {
		r, up, lo, ok := hex4(p)
		if up {
			flags |= escUpper
		}
		lower = lower || lo
		return r, ok
	}
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != '\\' {
			j++
		}
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			break
		}
		if j+1 == len(s) {
			return dst[:start], 0, false
		}
		i = j + 2
		switch s[j+1] {
		case '"', '\\':
			dst = append(dst, s[j+1])
		case '/':
			flags |= escSlash
			dst = append(dst, '/')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex(s[j+2:])
			if !ok {
				return dst[:start], 0, false
			}
			i = j + 6
			if r >= 0xD800 && r < 0xDC00 {
				// A surrogate pair's first half: the second must follow.
				if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
					return dst[:start], 0, false
				}
				r2, ok := hex(s[i+2:])
				if !ok || r2 < 0xDC00 || r2 >= 0xE000 {
					return dst[:start], 0, false
				}
				i += 6
				r = 0x10000 + (r-0xD800)<<10 + r2 - 0xDC00
			} else if r >= 0xDC00 && r < 0xE000 {
				return dst[:start], 0, false // a lone second half: not UTF-8
			}
			switch {
			case r == '<' || r == '>' || r == '&':
				flags |= escHTML
			case r == '\u2028' || r == '\u2029':
				flags |= escLines
			case r >= 0x80:
				flags |= escASCII
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst[:start], 0, false
		}
	}
	if flags&escASCII != 0 {
		flags &^= escLines // escaped as any rune past U+007F: one dialect
	}
	x := dst[start:]
	if lower && flags&escUpper != 0 || hasMarker(x) {
		return dst[:start], 0, false
	}
	// Escaping it again must give s back.
	*back = appendEscaped((*back)[:0], x, flags, len(s))
	if string(*back) != string(s) {
		return dst[:start], 0, false
	}
	return dst, dialects[flags], true
}

// hex4 parses the four hex digits at the start of p, and reports whether
// they held upper-case letters, lower-case letters.
func hex4(p []byte) (r rune, upper, lower, ok bool) {
	if len(p) < 4 {
		return 0, false, false, false
	}
	for _, c := range p[:4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d, lower = c-'a'+10, true
		case c >= 'A' && c <= 'F':
			d, upper = c-'A'+10, true
		default:
			return 0, false, false, false
		}
		r = r<<4 | rune(d)
	}
	return r, upper, lower, true
}

// appendCSV appends the text s stands for, s a CSV field's text between
// its quotes, each quote of the text doubled, to dst; ok is false, and dst
// as it was, where a quote is not doubled, or the text would hold a byte
// the format uses as a marker.
func appendCSV(dst, s []byte) (_ []byte, ok bool) {
	start := len(dst)
	if cap(dst)-len(dst) < len(s) {
		// Twice the room: a batch's fields go one after another into
		// one buffer, which append would grow by a quarter at a time,
		// in memory fresh from the kernel (a CSV file of dev: 20% of
		// its compression).
		dst = append(huge.Bytes(max(2*cap(dst), len(dst)+len(s))), dst...)
	}
	for {
		i := bytes.IndexByte(s, '"')
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		if i+1 == len(s) || s[i+1] != '"' {
			return dst[:start], false
		}
		dst = append(dst, s[:i+1]...)
		s = s[i+2:]
	}
	if hasMarker(dst[start:]) {
		return dst[:start], false
	}
	return dst, true
}

package gen

import (
	"strconv"
	"unicode/utf8"
)

// The generator builds every record as a tree of the types below and writes
// it with appendJSON. Objects are ordered slices, not maps, so keys come out
// in the order each API client or server writes them, and no map iteration
// order can leak into the output.

// object is a JSON object whose members keep their order.
type object []member

// member is one key/value pair of an object.
type member struct {
	key string
	val any
}

// number is a JSON number literal written exactly as given ("0", "1.0",
// "0.212256"). Sampling parameters and timings are kept as literals so that
// no floating-point formatting is involved.
type number string

// jsonStyle selects between the two serializers seen in logged traffic.
type jsonStyle struct {
	// spaced writes ", " and ": " between items, as Python's json.dumps does
	// by default; otherwise the output is compact, as the OpenAI SDKs and
	// servers write it.
	spaced bool
	// ascii escapes every non-ASCII character as \uXXXX (surrogate pairs
	// above U+FFFF), as json.dumps does unless ensure_ascii=False.
	ascii bool
}

var (
	compact = jsonStyle{}
	// pythonJSON is json.dumps with its defaults.
	pythonJSON = jsonStyle{spaced: true, ascii: true}
	// pythonUTF8 is json.dumps(..., ensure_ascii=False).
	pythonUTF8 = jsonStyle{spaced: true}
)

// encode returns v serialized in style s.
func (s jsonStyle) encode(v any) string { return string(s.append(nil, v)) }

// append appends the JSON encoding of v to b. v must be nil, a bool, an int,
// an int64, a number, a string, an object, a []any, a []object or a
// []string; anything else is a bug in the generator and panics.
func (s jsonStyle) append(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case number:
		return append(b, v...)
	case string:
		return s.appendString(b, v)
	case object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = s.sep(b, ',')
			}
			b = s.appendString(b, m.key)
			b = s.sep(b, ':')
			b = s.append(b, m.val)
		}
		return append(b, '}')
	case []any:
		return appendArray(s, b, v)
	case []object:
		return appendArray(s, b, v)
	case []string:
		return appendArray(s, b, v)
	}
	panic("sample: cannot encode value of this type as JSON")
}

func appendArray[T any](s jsonStyle, b []byte, v []T) []byte {
	b = append(b, '[')
	for i, e := range v {
		if i > 0 {
			b = s.sep(b, ',')
		}
		b = s.append(b, e)
	}
	return append(b, ']')
}

func (s jsonStyle) sep(b []byte, c byte) []byte {
	b = append(b, c)
	if s.spaced {
		b = append(b, ' ')
	}
	return b
}

// appendString writes str as a JSON string the way JSON.stringify and
// Python's json.dumps do: only '"', '\\' and control characters are escaped
// (the short forms \b \f \n \r \t where they exist), '/', '<', '>' and '&'
// are left alone, and non-ASCII text is raw UTF-8 unless s.ascii is set.
// The generator only produces valid UTF-8.
func (s jsonStyle) appendString(b []byte, str string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range str {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20 || (s.ascii && r > 0x7e && r <= 0xffff):
			b = append(b, '\\', 'u', hex[r>>12], hex[r>>8&15], hex[r>>4&15], hex[r&15])
		case s.ascii && r > 0xffff:
			r -= 0x10000
			hi, lo := 0xd800+r>>10, 0xdc00+r&0x3ff
			b = append(b, '\\', 'u', hex[hi>>12], hex[hi>>8&15], hex[hi>>4&15], hex[hi&15])
			b = append(b, '\\', 'u', hex[lo>>12], hex[lo>>8&15], hex[lo>>4&15], hex[lo&15])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

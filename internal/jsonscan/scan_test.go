package jsonscan

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu/cputest"
)

// acceptCase is one input and the verdict Scan must give: a nil err for
// valid input, else the sentinel and (if off >= 0) the offset.
type acceptCase struct {
	name string
	in   string
	err  error
	off  int
}

func valid(name, in string) acceptCase { return acceptCase{name, in, nil, -1} }
func invalid(name, in string, err error, off int) acceptCase {
	return acceptCase{name, in, err, off}
}

var acceptCases = []acceptCase{
	// Top-level values and whitespace.
	valid("object", `{}`),
	valid("array", `[]`),
	valid("string", `""`),
	valid("zero", `0`),
	valid("minus zero", `-0`),
	valid("true", `true`),
	valid("false", `false`),
	valid("null", `null`),
	valid("surrounding whitespace", " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" :\n{ } }\n\t "),
	valid("nested", `{"a":[1,{"b":null,"c":[true,false,"x"]}],"d":{"e":{}}}`),
	invalid("empty", ``, ErrSyntax, 0),
	invalid("whitespace only", " \t\r\n", ErrSyntax, 4),
	invalid("BOM", "\xEF\xBB\xBF{}", ErrSyntax, 0),
	invalid("two values", `{} {}`, ErrSyntax, 3),
	invalid("trailing garbage", `{}x`, ErrSyntax, 2),
	invalid("trailing NUL", "{}\x00", ErrSyntax, 2),
	invalid("trailing comma top", `1,`, ErrSyntax, 1),
	invalid("form feed is not whitespace", "\f{}", ErrSyntax, 0),
	invalid("vertical tab is not whitespace", "{}\v", ErrSyntax, 2),
	invalid("NBSP is not whitespace", "\u00a0{}", ErrSyntax, 0),
	invalid("comment", `/**/{}`, ErrSyntax, 0),

	// Structure.
	invalid("lone open brace", `{`, ErrSyntax, 1),
	invalid("lone open bracket", `[`, ErrSyntax, 1),
	invalid("lone close brace", `}`, ErrSyntax, 0),
	invalid("lone close bracket", `]`, ErrSyntax, 0),
	invalid("mismatched", `[}`, ErrSyntax, 1),
	invalid("mismatched 2", `{"a":1]`, ErrSyntax, 6),
	invalid("extra close", `[1]]`, ErrSyntax, 3),
	invalid("empty member", `{,}`, ErrSyntax, 1),
	invalid("key without value", `{"a"}`, ErrSyntax, 4),
	invalid("colon without value", `{"a":}`, ErrSyntax, 5),
	invalid("trailing comma object", `{"a":1,}`, ErrSyntax, 7),
	invalid("trailing comma array", `[1,]`, ErrSyntax, 3),
	invalid("leading comma array", `[,1]`, ErrSyntax, 1),
	invalid("missing comma array", `[1 2]`, ErrSyntax, 3),
	invalid("missing comma object", `{"a":1 "b":2}`, ErrSyntax, 7),
	invalid("unquoted key", `{a:1}`, ErrSyntax, 1),
	invalid("single quotes", `{'a':1}`, ErrSyntax, 1),
	invalid("number key", `{1:1}`, ErrSyntax, 1),
	invalid("eof after key", `{"a"`, ErrSyntax, 4),
	invalid("eof after colon", `{"a":`, ErrSyntax, 5),
	invalid("eof after comma", `[1,`, ErrSyntax, 3),

	// Literals.
	invalid("truncated true", `tru`, ErrSyntax, 0),
	invalid("truncated null in array", `[nul]`, ErrSyntax, 1),
	invalid("capital True", `True`, ErrSyntax, 0),
	invalid("NaN", `NaN`, ErrSyntax, 0),
	invalid("Infinity", `-Infinity`, ErrSyntax, 1),
	invalid("literal suffix", `truex`, ErrSyntax, 4),
	invalid("literal suffix in array", `[falsey]`, ErrSyntax, 6),

	// Number grammar.
	valid("integer", `1234567890`),
	valid("negative", `-12`),
	valid("fraction", `0.5`),
	valid("exponent", `1e5`),
	valid("capital exponent", `1E+5`),
	valid("negative exponent", `-1.5e-5`),
	valid("zero fraction exponent", `-0.0e-0`),
	valid("exponent leading zeros", `1e0005`),
	valid("long integer", `123456789012345678901234567890123456789012345678901234567890`),
	valid("long fraction", `0.`+strings.Repeat("9", 400)),
	valid("u64 max", `18446744073709551615`),
	valid("u64 max plus one", `18446744073709551616`),
	valid("number then space", `1 `),
	invalid("lone minus", `-`, ErrSyntax, 1),
	invalid("minus space", `- 1`, ErrSyntax, 1),
	invalid("plus", `+1`, ErrSyntax, 0),
	invalid("leading zero", `01`, ErrSyntax, 1),
	invalid("negative leading zero", `-01`, ErrSyntax, 2),
	invalid("leading zeros", `00`, ErrSyntax, 1),
	invalid("bare point", `1.`, ErrSyntax, 2),
	invalid("point exponent", `1.e5`, ErrSyntax, 2),
	invalid("leading point", `.5`, ErrSyntax, 0),
	invalid("bare exponent", `1e`, ErrSyntax, 2),
	invalid("exponent sign only", `1e+`, ErrSyntax, 3),
	invalid("exponent minus only", `1E-`, ErrSyntax, 3),
	invalid("hex", `0x10`, ErrSyntax, 1),
	invalid("double minus", `--1`, ErrSyntax, 1),
	invalid("two points", `1.2.3`, ErrSyntax, 3),
	invalid("exponent fraction", `1e2.5`, ErrSyntax, 3),

	// Number range: serde_json's rule (see number.go).
	valid("1e308", `1e308`),
	valid("-1e308", `-1e308`),
	valid("0.1e309", `0.1e309`),
	valid("10e307", `10e307`),
	valid("max float64 shortest", `1.7976931348623157e308`),
	valid("max float64 as 17 digits and exponent", `17976931348623157e292`),
	valid("just below max", `1.797693134862315e308`),
	valid("underflow", `1e-400`),
	valid("negative underflow", `-1e-400`),
	valid("huge negative exponent", `1e-99999999999999999999`),
	valid("zero with huge exponent", `0e99999999999999999999`),
	valid("zero fraction with huge exponent", `0.000e+99999999999`),
	valid("int32 max exponent, zero", `0e2147483647`),
	valid("int32 max negative exponent", `5e-2147483647`),
	valid("int32 overflow negative exponent", `5e-2147483648`),
	valid("1e308 as 309 digits", `1`+strings.Repeat("0", 308)),
	valid("1e308 as fraction", `0.`+strings.Repeat("0", 50)+`1e359`),
	invalid("1e309", `1e309`, ErrNumberRange, 0),
	invalid("-1e309", `-1e309`, ErrNumberRange, 0),
	invalid("1.8e308", `[1.8e308]`, ErrNumberRange, 1),
	invalid("exponent beyond 308", `0.00001e314`, ErrNumberRange, 0),
	invalid("huge exponent", `1e99999999999999999999`, ErrNumberRange, 0),
	invalid("int32 overflow exponent", `1e2147483648`, ErrNumberRange, 0),
	invalid("int32 max exponent", `1e2147483647`, ErrNumberRange, 0),
	invalid("1e309 as 310 digits", `1`+strings.Repeat("0", 309), ErrNumberRange, 0),
	invalid("400 digits", strings.Repeat("9", 400), ErrNumberRange, 0),
	// Where serde_json's single rounded multiplication differs from a
	// correctly rounded parse: both of these round to math.MaxFloat64.
	invalid("rounds to max, serde overflows", `1.7976931348623158e308`, ErrNumberRange, 0),
	invalid("max float64 exactly, serde overflows", maxFloat64Decimal(), ErrNumberRange, 0),
	invalid("range error in object", `{"a":1e400}`, ErrNumberRange, 5),

	// Strings.
	valid("escapes", `"\"\\\/\b\f\n\r\t"`),
	valid("unicode escapes", `"\u0000\u001f\u0041\u00e9\u20AC\uFFFF"`),
	valid("surrogate pair", `"\uD83D\uDE00"`),
	valid("surrogate pair lower case", `"\ud83d\ude00"`),
	valid("max surrogate pair", `"\uDBFF\uDFFF"`),
	valid("min surrogate pair", `"\uD800\uDC00"`),
	valid("raw UTF-8", "\"é€😀\u07ff\u0800\uffff\U0010FFFF\""),
	valid("raw DEL", "\"\x7f\""),
	valid("long ASCII", `"`+strings.Repeat("abcdefgh", 100)+`"`),
	valid("escape runs", `"\n\n\r\n\\\"\\\\"`),
	valid("escaped quote at every offset", `"`+strings.Repeat(`a\"`, 40)+`"`),
	invalid("unterminated", `"abc`, ErrSyntax, 4),
	invalid("unterminated long", `"`+strings.Repeat("x", 40), ErrSyntax, 41),
	invalid("unterminated after escape", `"\"`, ErrSyntax, 3),
	invalid("raw NUL", "\"a\x00\"", ErrSyntax, 2),
	invalid("raw newline", "\"a\nb\"", ErrSyntax, 2),
	invalid("raw tab", "\"\t\"", ErrSyntax, 1),
	invalid("raw 0x1f", "\"\x1f\"", ErrSyntax, 1),
	invalid("raw control after 20 bytes", `"`+strings.Repeat("a", 20)+"\x01\"", ErrSyntax, 21),
	invalid("bad escape", `"\a"`, ErrSyntax, 1),
	invalid("escaped single quote", `"\'"`, ErrSyntax, 1),
	invalid("capital U escape", `"\U0041"`, ErrSyntax, 1),
	invalid("escaped newline char", "\"\\\n\"", ErrSyntax, 1),
	invalid("short unicode escape", `"\u12"`, ErrSyntax, 1),
	invalid("bad hex", `"\u12G4"`, ErrSyntax, 1),
	invalid("eof in unicode escape", `"\u00`, ErrSyntax, 1),
	invalid("eof after backslash", `"\`, ErrSyntax, 2),
	invalid("raw control in key", "{\"a\x02\":1}", ErrSyntax, 3),

	// UTF-8 in strings.
	invalid("continuation byte", "\"\x80\"", ErrUTF8, 1),
	invalid("overlong NUL", "\"\xC0\x80\"", ErrUTF8, 1),
	invalid("overlong 2-byte", "\"\xC1\xBF\"", ErrUTF8, 1),
	invalid("overlong 3-byte", "\"\xE0\x80\x80\"", ErrUTF8, 1),
	invalid("overlong 3-byte max", "\"\xE0\x9F\xBF\"", ErrUTF8, 1),
	invalid("UTF-8 surrogate low end", "\"\xED\xA0\x80\"", ErrUTF8, 1),
	invalid("UTF-8 surrogate high end", "\"\xED\xBF\xBF\"", ErrUTF8, 1),
	invalid("overlong 4-byte", "\"\xF0\x80\x80\x80\"", ErrUTF8, 1),
	invalid("overlong 4-byte max", "\"\xF0\x8F\xBF\xBF\"", ErrUTF8, 1),
	invalid("above U+10FFFF", "\"\xF4\x90\x80\x80\"", ErrUTF8, 1),
	invalid("F5 lead", "\"\xF5\x80\x80\x80\"", ErrUTF8, 1),
	invalid("FF byte", "\"ab\xFF\"", ErrUTF8, 3),
	invalid("truncated 2-byte", "\"\xC3\"", ErrUTF8, 1),
	invalid("truncated 3-byte", "\"\xE2\x82\"", ErrUTF8, 1),
	invalid("truncated 4-byte", "\"\xF0\x9F\x98\"", ErrUTF8, 1),
	invalid("lead then ASCII", "\"\xE2a\x82\"", ErrUTF8, 1),
	invalid("valid then invalid", "\"é\xE9\"", ErrUTF8, 3),
	invalid("invalid after 30 ASCII", "\""+strings.Repeat("a", 30)+"\x80\"", ErrUTF8, 31),
	invalid("invalid in key", "{\"k\xFF\":1}", ErrUTF8, 3),
	invalid("truncated at end of input", "\"\xE2\x82", ErrUTF8, 1),
	invalid("non-ASCII outside strings", "[\xC3\xA9]", ErrSyntax, 1),

	// Surrogate escapes.
	invalid("lone high", `"\uD800"`, ErrSurrogate, 1),
	invalid("lone high then text", `"\uD83Dx"`, ErrSurrogate, 1),
	invalid("lone low", `"\uDC00"`, ErrSurrogate, 1),
	invalid("lone low max", `"a\uDFFF"`, ErrSurrogate, 2),
	invalid("reversed pair", `"\uDE00\uD83D"`, ErrSurrogate, 1),
	invalid("two highs", `"\uD800\uD800"`, ErrSurrogate, 1),
	invalid("high then BMP escape", `"\uD800\u0041"`, ErrSurrogate, 1),
	invalid("high then simple escape", `"\uD800\n"`, ErrSurrogate, 1),
	invalid("high then bad hex", `"\uD800\uZZZZ"`, ErrSyntax, 7),
	invalid("high at end of input", `"\uD800`, ErrSyntax, 7),
	invalid("high then backslash at end", `"\uD800\`, ErrSyntax, 8),
	invalid("lone surrogate in key", `{"\uDC00":1}`, ErrSurrogate, 2),
	invalid("low after pair", `"\uD83D\uDE00\uDE00"`, ErrSurrogate, 13),
}

// maxFloat64Decimal is math.MaxFloat64 written out as an integer.
func maxFloat64Decimal() string {
	return new(big.Float).SetFloat64(math.MaxFloat64).Text('f', 0)
}

// TestAcceptance checks every case of acceptCases, with every kernel.
func TestAcceptance(t *testing.T) {
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		for _, tc := range acceptCases {
			t.Run(tc.name, func(t *testing.T) {
				checkVerdict(t, []byte(tc.in), Limits{}, tc.err, tc.off)
				if msg := checkAgainstRef([]byte(tc.in), Limits{}); msg != "" {
					t.Errorf("%q: %s", tc.in, msg)
				}
			})
		}
	})
}

// checkVerdict scans in and checks the error against want and off.
func checkVerdict(t *testing.T, in []byte, lim Limits, want error, off int) {
	t.Helper()
	var f Fields
	err := Scan(in, lim, &f)
	short := string(in)
	if len(short) > 60 {
		short = fmt.Sprintf("%.60s…(%d bytes)", short, len(in))
	}
	if want == nil {
		if err != nil {
			t.Fatalf("Scan(%q) = %v, want nil", short, err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Scan(%q) = %v, want an *Error wrapping %v", short, err, want)
	}
	if !errors.Is(err, want) {
		t.Errorf("Scan(%q) = %v, want %v", short, err, want)
	}
	if off >= 0 && e.Offset != off {
		t.Errorf("Scan(%q) = %v, want offset %d", short, err, off)
	}
}

// nest returns depth nested containers around a 1.
func nest(depth int, object bool) string {
	if object {
		return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	}
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// array returns an array of n zeros.
func array(n int) string {
	if n == 0 {
		return "[]"
	}
	return "[" + strings.Repeat("0,", n-1) + "0]"
}

// TestLimits checks each limit on both sides of its bound, with every
// kernel.
func TestLimits(t *testing.T) {
	const mib10 = 10 << 20
	bigString := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	cases := []struct {
		name string
		in   string
		lim  Limits
		err  error
		off  int
	}{
		{"scalar", `1`, Limits{}, nil, -1},
		{"depth 32 arrays", nest(32, false), Limits{}, nil, -1},
		{"depth 33 arrays", nest(33, false), Limits{}, ErrDepth, 32},
		{"depth 32 objects", nest(32, true), Limits{}, nil, -1},
		{"depth 33 objects", nest(33, true), Limits{}, ErrDepth, 32 * 5},
		{"depth 33 empty", strings.Repeat("[", 33) + strings.Repeat("]", 33), Limits{}, ErrDepth, 32},
		{"depth 32 mixed", strings.Repeat(`[{"a":`, 16) + "1" + strings.Repeat("}]", 16), Limits{}, nil, -1},
		{"depth 33 mixed", "[" + strings.Repeat(`{"a":[`, 16) + strings.Repeat("]}", 16) + "]", Limits{}, ErrDepth, 1 + 15*6 + 5},
		{"siblings do not add up", "[" + strings.Repeat(nest(31, false)+",", 3) + "0]", Limits{}, nil, -1},
		{`{"a":[1]} at depth 2`, `{"a":[1]}`, Limits{MaxDepth: 2}, nil, -1},
		{`{"a":[1]} at depth 1`, `{"a":[1]}`, Limits{MaxDepth: 1}, ErrDepth, 5},
		{"depth 127 serde", nest(127, false), Limits{MaxDepth: 127}, nil, -1},
		{"depth 128 serde", nest(128, false), Limits{MaxDepth: 127}, ErrDepth, 127},
		{"no depth limit", nest(5000, true), Limits{MaxDepth: -1}, nil, -1},
		{"syntax error beyond the depth", strings.Repeat("[", 40) + "x", Limits{}, ErrDepth, 32},
		{"syntax error before the depth", "[x" + strings.Repeat("[", 40), Limits{}, ErrSyntax, 1},

		{"10000 elements", array(10000), Limits{}, nil, -1},
		{"10001 elements", array(10001), Limits{}, ErrArrayTooLong, 1 + 2*10000},
		{"10001 elements nested", `{"a":` + array(10001) + `}`, Limits{}, ErrArrayTooLong, 5 + 1 + 2*10000},
		{"10000 elements each", "[" + array(10000) + "," + array(10000) + "]", Limits{}, nil, -1},
		{"10000 members are not elements", "{" + strings.Repeat(`"a":0,`, 10000) + `"b":0}`, Limits{}, nil, -1},
		{"1 element", `[1]`, Limits{MaxArrayLen: 1}, nil, -1},
		{"2 elements", `[1, 2]`, Limits{MaxArrayLen: 1}, ErrArrayTooLong, 4},
		{"no array limit", array(20000), Limits{MaxArrayLen: -1}, nil, -1},

		{"10 MiB string", bigString(mib10), Limits{}, nil, -1},
		{"10 MiB + 1 string", bigString(mib10 + 1), Limits{}, ErrStringTooLong, 0},
		{"10 MiB + 1 key", `{` + bigString(mib10+1) + `:1}`, Limits{}, ErrStringTooLong, 1},
		{"5 bytes", `["abcde"]`, Limits{MaxStringLen: 5}, nil, -1},
		{"6 bytes", `["abcdef"]`, Limits{MaxStringLen: 5}, ErrStringTooLong, 1},
		{"6-byte key", `{"abcdef":1}`, Limits{MaxStringLen: 5}, ErrStringTooLong, 1},
		{"escapes count raw", `"\n\n\n"`, Limits{MaxStringLen: 5}, ErrStringTooLong, 0},
		{"unicode escape counts 6", `"\u00e9"`, Limits{MaxStringLen: 6}, nil, -1},
		{"unicode escape counts 6, limit 5", `"\u00e9"`, Limits{MaxStringLen: 5}, ErrStringTooLong, 0},
		{"no string limit", bigString(mib10 + 1), Limits{MaxStringLen: -1}, nil, -1},
		{"bad UTF-8 wins over length", "\"aaaaaaaaaa\xff\"", Limits{MaxStringLen: 5}, ErrUTF8, 11},
	}
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				checkVerdict(t, []byte(tc.in), tc.lim, tc.err, tc.off)
				if len(tc.in) < 1<<20 && !strings.Contains(tc.name, "no depth limit") {
					if msg := checkAgainstRef([]byte(tc.in), tc.lim); msg != "" {
						t.Error(msg)
					}
				}
			})
		}
	})
	t.Run("errors.Is ErrLimit", func(t *testing.T) {
		for _, err := range []error{ErrDepth, ErrStringTooLong, ErrArrayTooLong} {
			if !errors.Is(&Error{Err: err}, ErrLimit) {
				t.Errorf("%v does not match ErrLimit", err)
			}
		}
		for _, err := range []error{ErrSyntax, ErrUTF8, ErrSurrogate, ErrNumberRange} {
			if errors.Is(&Error{Err: err}, ErrLimit) {
				t.Errorf("%v matches ErrLimit", err)
			}
		}
	})
}

func TestLimitsResolve(t *testing.T) {
	if got := (Limits{}).resolve(); got != DefaultLimits {
		t.Errorf("Limits{}.resolve() = %+v, want %+v", got, DefaultLimits)
	}
	if DefaultLimits != (Limits{MaxDepth: 32, MaxStringLen: 10 << 20, MaxArrayLen: 10000}) {
		t.Errorf("DefaultLimits = %+v, not the protocol's", DefaultLimits)
	}
	got := Limits{MaxDepth: -1, MaxStringLen: 7, MaxArrayLen: -5}.resolve()
	if got != (Limits{MaxDepth: math.MaxInt, MaxStringLen: 7, MaxArrayLen: math.MaxInt}) {
		t.Errorf("resolve = %+v", got)
	}
}

func TestErrorMessage(t *testing.T) {
	var f Fields
	err := Scan([]byte(`{"a":tru}`), Limits{}, &f)
	if got, want := err.Error(), "jsonscan: syntax error at offset 5"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err = Scan([]byte(`[[1]]`), Limits{MaxDepth: 1}, &f)
	if got, want := err.Error(), "jsonscan: limit exceeded: nesting too deep at offset 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestNumberRangeAgainstStrconv checks the serde rule against a correctly
// rounded parse away from the edge of the float64 range, where the two
// must agree: well inside, both accept; well outside, both reject.
func TestNumberRangeAgainstStrconv(t *testing.T) {
	var f Fields
	mantissas := []string{"1", "9", "1.5", "17976931348623157", "0.000179769313486", "99999999999999999999999", "123.456"}
	for _, m := range mantissas {
		for e := 250; e <= 330; e++ {
			for _, sign := range []string{"", "-"} {
				in := fmt.Sprintf("%s%se%d", sign, m, e)
				v, perr := strconv.ParseFloat(in, 64)
				err := Scan([]byte(in), Limits{}, &f)
				mag := math.Abs(v)
				switch {
				case perr == nil && mag < math.MaxFloat64*(1-1e-12):
					if err != nil {
						t.Errorf("%s (= %g) rejected: %v", in, v, err)
					}
				case perr != nil && !refNumberRoundsNear(in):
					if !errors.Is(err, ErrNumberRange) {
						t.Errorf("%s (out of range) gave %v", in, err)
					}
				}
				if refNumberInRange(in) != (err == nil) {
					t.Errorf("%s: Scan says %v, the reference range check %v", in, err, refNumberInRange(in))
				}
			}
		}
	}
}

// refNumberRoundsNear reports whether the number is within 1e-12 of
// math.MaxFloat64 in relative terms, where the two rules may disagree.
func refNumberRoundsNear(in string) bool {
	x, _, err := big.ParseFloat(strings.TrimPrefix(in, "-"), 10, 200, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	r, _ := new(big.Float).Quo(x, new(big.Float).SetFloat64(math.MaxFloat64)).Float64()
	return math.Abs(r-1) < 1e-12
}

func TestPow10(t *testing.T) {
	for k, p := range pow10 {
		want, err := strconv.ParseFloat("1e"+strconv.Itoa(k), 64)
		if err != nil || p != want {
			t.Errorf("pow10[%d] = %v, want %v", k, p, want)
		}
	}
}

// TestSpecialMask checks the SWAR classifier on every byte value in every
// lane, with and without flagged bytes below it.
func TestSpecialMask(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	for lane := 0; lane < 8; lane++ {
		for c := 0; c < 256; c++ {
			for _, fill := range []byte{'a', ' ', '~', 0x7f} {
				var w [8]byte
				for k := range w {
					w[k] = fill
				}
				w[lane] = byte(c)
				word := uint64(0)
				for k := 7; k >= 0; k-- {
					word = word<<8 | uint64(w[k])
				}
				m := specialMask(word)
				first := 8
				for k := 0; k < 8; k++ {
					if special(w[k]) {
						first = k
						break
					}
				}
				got := 8
				if m != 0 {
					got = 0
					for m&(0x80<<(8*got)) == 0 {
						got++
					}
				}
				if got != first {
					t.Fatalf("specialMask(% x): first flagged lane %d, want %d", w, got, first)
				}
			}
		}
	}
}

// TestStringPositions puts each kind of special byte at every offset of
// strings up to 40 bytes long, so that every lane of both words of the
// generic code's 16-byte step and the byte-at-a-time tail meet each of
// them, with the string ending the input or followed by more; with every
// kernel (TestKernels puts them across a kernel's blocks).
func TestStringPositions(t *testing.T) {
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		specials := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "é", "😀", "\x01", "\x1f", "\x80", "\xff", "\xe2\x82", `\uD800`, `\q`, `"`}
		for n := 0; n <= 40; n++ {
			for p := 0; p <= n; p++ {
				for _, sp := range specials {
					body := strings.Repeat("a", p) + sp + strings.Repeat("b", n-p)
					for _, in := range []string{`"` + body + `"`, `["` + body + `",` + strings.Repeat("1", 20) + `]`} {
						if msg := checkAgainstRef([]byte(in), Limits{}); msg != "" {
							t.Fatalf("%q: %s", in, msg)
						}
					}
				}
			}
		}
	})
}

// TestPrefixes scans every prefix of some valid records with every
// kernel: none may panic, and each verdict must match the reference's.
func TestPrefixes(t *testing.T) {
	cputest.Run(t, "jsonscan", func(t *testing.T) {
		records := []string{
			`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi \u00e9\ud83d\ude00 \"x\"\n"}],"max_tokens":1000,"temperature":0.7,"stream":true}`,
			`{"id":"chatcmpl-abc","choices":[{"message":{"refusal":"no","tool_calls":[]},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":2}}}`,
			`[1.5e-3, -0, true, false, null, "é😀", {"a": [ ] , "b" : { } }]`,
			"  \"" + strings.Repeat("0123456789", 5) + "\"  ",
		}
		for _, r := range records {
			for k := 0; k <= len(r); k++ {
				if msg := checkAgainstRef([]byte(r[:k]), Limits{}); msg != "" {
					t.Fatalf("prefix %q: %s", r[:k], msg)
				}
			}
		}
	})
}

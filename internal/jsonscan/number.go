package jsonscan

import "math"

// scanNumber validates the number token starting at src[i], which is '-'
// or a digit, and returns the offset just past it. When the token is an
// unsigned integer in serde_json's sense (no sign, fraction or exponent,
// value at most 2^64-1) isUint is true and u holds its value.
//
// The grammar is RFC 8259's. The range check replicates serde_json 1.0's
// default number parsing (de.rs without its float_roundtrip feature, which
// the reference does not enable), not a correctly rounded conversion:
//
//   - Digits go into a uint64 significand while it does not overflow.
//     From the first integer digit that would overflow it, the remaining
//     integer digits are dropped, each raising the decimal exponent by one
//     (parse_long_integer). Fraction digits are taken while they fit, each
//     lowering the exponent by one; from the first that does not, the
//     rest are dropped (parse_decimal_overflow). So after an overflowing
//     integer part a small fraction digit can still be taken, as in serde.
//   - The exponent part is read into an int32; if it overflows that, the
//     number is infinite (rejected) for a non-zero significand and a
//     positive exponent, and zero (accepted) otherwise. Else it is added
//     to the decimal exponent with int32 saturation.
//   - A zero significand or a negative exponent is always accepted: 1e-400
//     underflows to 0. Otherwise the number is rejected when the exponent
//     is above 308 or float64(significand) × 10^exponent, one rounded
//     multiplication by the float64 nearest 10^exponent, is infinite.
//
// serde's decimal exponent before the exponent part is an int32 that wraps
// after 2^31 digits; here it is an int64, which differs only for numbers
// of more than two billion digits.
func scanNumber(src []byte, i int) (end int, u uint64, isUint bool, kind errKind) {
	const maxSig = math.MaxUint64
	start := i
	neg := src[i] == '-'
	if neg {
		i++
		if i >= len(src) {
			return i, 0, false, errSyntax
		}
	}
	var (
		sig      uint64
		exp      int64 // decimal exponent of sig before the exponent part
		integral = true
	)
	switch c := src[i]; {
	case c == '0':
		i++
		if i < len(src) && src[i]-'0' <= 9 {
			return i, 0, false, errSyntax // a leading zero
		}
	case c-'1' <= 8:
		sig = uint64(c - '0')
		i++
		for i < len(src) {
			d := uint64(src[i] - '0')
			if d > 9 {
				break
			}
			if sig >= maxSig/10 && (sig > maxSig/10 || d > maxSig%10) {
				// serde's parse_long_integer: the rest of the digits
				// only scale the significand.
				integral = false
				for i < len(src) && src[i]-'0' <= 9 {
					i++
					exp++
				}
				break
			}
			sig = sig*10 + d
			i++
		}
	default:
		return i, 0, false, errSyntax
	}
	if i < len(src) && src[i] == '.' {
		integral = false
		i++
		first := i
		for i < len(src) {
			d := uint64(src[i] - '0')
			if d > 9 {
				break
			}
			if sig >= maxSig/10 && (sig > maxSig/10 || d > maxSig%10) {
				// serde's parse_decimal_overflow: the rest are ignored.
				for i < len(src) && src[i]-'0' <= 9 {
					i++
				}
				break
			}
			sig = sig*10 + d
			exp--
			i++
		}
		if i == first {
			return i, 0, false, errSyntax // no digit after the point
		}
	}
	if i < len(src) && src[i]|0x20 == 'e' {
		integral = false
		i++
		positive := true
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			positive = src[i] == '+'
			i++
		}
		if i >= len(src) || src[i]-'0' > 9 {
			return i, 0, false, errSyntax // no digit in the exponent
		}
		var e int64
		tooBig := false
		for ; i < len(src) && src[i]-'0' <= 9; i++ {
			d := int64(src[i] - '0')
			if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || d > math.MaxInt32%10) {
				tooBig = true
				continue
			}
			e = e*10 + d
		}
		switch {
		case tooBig && positive && sig != 0:
			return start, 0, false, errNumberRange
		case tooBig:
			return i, 0, false, errNone // ±0
		case positive:
			exp += e
		default:
			exp -= e
		}
		exp = max(min(exp, math.MaxInt32), math.MinInt32)
	}
	if sig != 0 && exp > 0 {
		if exp > 308 || float64(sig)*pow10[exp] > math.MaxFloat64 {
			return start, 0, false, errNumberRange
		}
	}
	return i, sig, integral && !neg, errNone
}

// pow10 holds the float64 nearest to each power of ten serde_json's table
// holds (Go rounds each constant exactly as Rust rounds its literal).
var pow10 = [309]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
	1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39,
	1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48, 1e49,
	1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59,
	1e60, 1e61, 1e62, 1e63, 1e64, 1e65, 1e66, 1e67, 1e68, 1e69,
	1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79,
	1e80, 1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89,
	1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96, 1e97, 1e98, 1e99,
	1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109,
	1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119,
	1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129,
	1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139,
	1e140, 1e141, 1e142, 1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149,
	1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159,
	1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169,
	1e170, 1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179,
	1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188, 1e189,
	1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199,
	1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207, 1e208, 1e209,
	1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219,
	1e220, 1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229,
	1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239,
	1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249,
	1e250, 1e251, 1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259,
	1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269,
	1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
	1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287, 1e288, 1e289,
	1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299,
	1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308,
}

package numcol

// Times: the Unix times in seconds that LLM APIs put in each response
// ("created": 1740001598) and logs beside each record. Written in order,
// as a log is, the next is seldom more than seconds after the one before,
// where its last digits are news to a coder of text: taken as the
// difference from the one before in the same input (zigzag, a uvarint in
// a column), dev100's skeletons (their ids taken already) are 2.7%
// smaller at zstd's level 3, 0.9% with the context model (bench/README.md,
// "Ids as bits").
//
// A time is a run of ten digits from 1000000000 to 1999999999 (September
// 2001 to May 2033), no byte of a word or '.' before or after it (so not
// a float's integer part, a longer number or part of an id).
const (
	timeDigits = 10
	minTime    = 1_000_000_000
	maxTime    = 1_999_999_999
)

// timeAt reports whether a time starts at src[i].
func timeAt(src []byte, i int) bool {
	if src[i] != '1' || i > 0 && wordByte[src[i-1]] || len(src)-i < timeDigits {
		return false
	}
	for _, c := range src[i+1 : i+timeDigits] {
		if !isDigit(c) {
			return false
		}
	}
	return len(src) == i+timeDigits || !wordByte[src[i+timeDigits]]
}

// timeValue is the value of the ten digits of t.
func timeValue(t []byte) int64 {
	var v int64
	for _, c := range t[:timeDigits] {
		v = v*10 + int64(c-'0')
	}
	return v
}

// zigzag maps a difference to a uvarint's value: 0, -1, 1, -2, ... to
// 0, 1, 2, 3, ...
func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// appendTime appends time v's ten digits to dst.
func appendTime(dst []byte, v int64) []byte {
	var b [timeDigits]byte
	for k := timeDigits - 1; k >= 0; k-- {
		b[k] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, b[:]...)
}

// Package utf8x checks that text is UTF-8, as unicode/utf8.Valid does, at
// the speed of vector instructions: the tokenizer checks every text it
// encodes before it splits it, and on text in CJK scripts, three bytes a
// character, unicode/utf8 took 6-9% of encoding.
package utf8x

import "github.com/m2m-go/m2m/internal/cpu"

// The architecture files. Each build has exactly one of utf8x_amd64.go
// and utf8x_other.go (purego, or any other GOARCH), and that file defines:
//
//	var kernels []cpu.Kernel  // what it can dispatch to, best first; registered here
//	func valid(p []byte) bool // whether p is UTF-8
//
// valid picks a kernel by the dispatch flags the registry sets
// (cpu.Kernel.Use) and by size, and falls back to unicode/utf8.Valid, the
// generic code every kernel is tested against. The amd64 kernel and its Go
// declaration are generated (valid_amd64.s, valid_stubs_amd64.go, by
// _asm/main.go).
func init() { cpu.Register("utf8x", kernels...) }

// Valid reports whether p is entirely valid UTF-8: what unicode/utf8.Valid
// reports, for every input.
func Valid(p []byte) bool { return valid(p) }

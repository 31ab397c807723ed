//go:build !purego

package varint

import (
	"github.com/m2m-go/m2m/internal/cpu"
	"github.com/m2m-go/m2m/internal/race"
)

// useNEON is the dispatch flag set by the cpu registry.
var useNEON bool

var kernels = []cpu.Kernel{{Name: "neon", Needs: []cpu.Feature{cpu.ASIMD}, Use: &useNEON}}

// decodeNEON is decodeGeneric (varint_generic.go) in NEON; see
// varint_arm64.s. It reads up to 8 bytes past each 64-byte window, so it
// stops when fewer than 72 bytes of src remain, and when dst has room for
// fewer than 64 values.
//
//go:noescape
func decodeNEON(dst []uint32, src []byte) (nd, ns int)

// encodeNEON is encodeGeneric (varint_generic.go) in NEON; see
// varint_arm64.s. It stops when fewer than 8 bytes of dst remain.
//
//go:noescape
func encodeNEON(dst []byte, v []uint32) (nd, nv int)

func decode(dst []uint32, src []byte) (nd, ns int) {
	if useNEON && len(src) >= 72 {
		race.ReadSlice(src)
		race.WriteSlice(dst)
		nd, ns = decodeNEON(dst, src)
	}
	d, s := decodeGeneric(dst[nd:], src[ns:])
	return nd + d, ns + s
}

func encode(dst []byte, v []uint32) (nd, nv int) {
	if useNEON && len(v) >= 4 {
		race.ReadSlice(v)
		race.WriteSlice(dst)
		nd, nv = encodeNEON(dst, v)
	}
	d, n := encodeGeneric(dst[nd:], v[nv:])
	return nd + d, nv + n
}

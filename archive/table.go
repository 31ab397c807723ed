package archive

import (
	"hash/maphash"

	"github.com/m2m-go/m2m/internal/huge"
)

// A key identifies a value by its bytes: 128 bits of hash/maphash under two
// seeds drawn at random for each archive written, so values that collide
// cannot be made in advance. Two different values of an archive with n
// distinct values share a key with probability about n²/2¹²⁹ (10⁻²⁶ for
// two million values); a reader checks every record's CRC-32 besides.
type key struct{ a, b uint64 }

type hasher struct{ a, b maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed(), maphash.MakeSeed()} }

func (h hasher) sum(p []byte) key { return key{maphash.Bytes(h.a, p), maphash.Bytes(h.b, p)} }

// A table maps the keys of the values an archive has stored to their entry
// ids. Its memory is bounded (maxTableSlots slots of 24 bytes): it starts
// small and doubles whenever it is half full. A key lives in its home
// bucket, or if that is full, in the first of the next buckets with room
// (up to maxProbe of them); once the table is at its largest and all of
// those are full, a new key takes the place of the one used longest ago in
// its home bucket. A value forgotten so is stored again if it comes back;
// nothing else is ever forgotten, however far apart a value's occurrences
// are.
type table struct {
	slots []slot
	mask  uint64 // buckets - 1
	used  int
	clock uint32
}

// slot is one entry of the table; when is 0 for a free slot, else the
// table's clock when it was last found or stored. Slots are never emptied,
// so a free slot ends a key's probe.
type slot struct {
	k    key
	id   uint32
	when uint32
}

const (
	bucketSlots   = 8       // one or two cache lines
	maxProbe      = 16      // buckets a key may look in
	maxTableSlots = 1 << 21 // 48 MiB: two million values before any is forgotten
	minTableSlots = 1 << 10
)

func newTable() *table { return newTableOf(minTableSlots) }

func newTableOf(slots int) *table {
	// Huge pages where fresh: the table is filled at random, by the one
	// goroutine that dedupes, which faulted its 4 KiB pages one by one
	// (5.5 of 29 thousand faults archiving dev100).
	// Written before it is read, as probes read slots (huge.Touch).
	s := huge.Touch(huge.Slice[slot](slots))
	return &table{slots: s, mask: uint64(slots/bucketSlots - 1)}
}

// probe returns the i'th bucket key k may be in.
func (t *table) probe(k key, i int) []slot {
	b := ((k.a + uint64(i)) & t.mask) * bucketSlots
	return t.slots[b : b+bucketSlots : b+bucketSlots]
}

// tick advances the clock, renumbering the slots' stamps when it would
// wrap.
func (t *table) tick() uint32 {
	if t.clock == 1<<32-1 {
		t.renumber()
	}
	t.clock++
	return t.clock
}

func (t *table) renumber() {
	// Halving keeps the order of all stamps but the oldest, which is
	// enough to choose what to forget.
	for i := range t.slots {
		if t.slots[i].when != 0 {
			t.slots[i].when = t.slots[i].when/2 + 1
		}
	}
	t.clock = t.clock/2 + 1
}

// find returns the id stored under k.
func (t *table) find(k key) (uint32, bool) {
	for i := range maxProbe {
		b := t.probe(k, i)
		for j := range b {
			switch {
			case b[j].when == 0:
				return 0, false
			case b[j].k == k:
				b[j].when = t.tick()
				return b[j].id, true
			}
		}
	}
	return 0, false
}

// insert stores id under k, which is not in the table.
func (t *table) insert(k key, id uint32) {
	if t.used >= len(t.slots)/2 && len(t.slots) < maxTableSlots {
		t.grow()
	}
	for !t.place(slot{k: k, id: id, when: t.tick()}) {
		if len(t.slots) < maxTableSlots {
			t.grow()
			continue
		}
		// At its largest, and full all along the probe: forget the
		// value used longest ago in the home bucket.
		b := t.probe(k, 0)
		victim := 0
		for j := range b {
			if b[j].when < b[victim].when {
				victim = j
			}
		}
		b[victim] = slot{k: k, id: id, when: t.clock}
		return
	}
}

// place puts s in the first free slot of its probe, if there is one.
func (t *table) place(s slot) bool {
	for i := range maxProbe {
		b := t.probe(s.k, i)
		for j := range b {
			if b[j].when == 0 {
				b[j] = s
				t.used++
				return true
			}
		}
	}
	return false
}

// grow doubles the table, keeping every entry it can (a probe that
// overflows even so loses the entry, which is stored again if it recurs).
func (t *table) grow() {
	n := newTableOf(2 * len(t.slots))
	n.clock = t.clock
	for _, s := range t.slots {
		if s.when != 0 {
			n.place(s)
		}
	}
	*t = *n
}

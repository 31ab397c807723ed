package archive

import "hash/maphash"

// A key identifies a value by its bytes: 128 bits of hash/maphash under two
// seeds drawn at random for each archive written, so values that collide
// cannot be made in advance. Two different values of an archive with n
// distinct values share a key with probability about n²/2¹²⁹ (10⁻²⁶ for
// three million values); a reader checks every record's CRC-32 besides.
type key struct{ a, b uint64 }

type hasher struct{ a, b maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed(), maphash.MakeSeed()} }

func (h hasher) sum(p []byte) key { return key{maphash.Bytes(h.a, p), maphash.Bytes(h.b, p)} }

// A table maps the keys of the values an archive has stored to their entry
// ids. Its memory is bounded (maxTableSlots slots of 24 bytes): it starts
// small and doubles while it is less than half full, and once at its
// largest, a value that finds its bucket full takes the place of the one
// used longest ago in it. A value forgotten so is stored again if it comes
// back; nothing else is ever forgotten, however far apart a value's
// occurrences are.
type table struct {
	slots []slot
	mask  uint64 // buckets - 1
	used  int
	clock uint32
}

// slot is one entry of the table; when is 0 for a free slot, else the
// table's clock when it was last found or stored.
type slot struct {
	k    key
	id   uint32
	when uint32
}

const (
	bucketSlots   = 8       // slots a key may take: one or two cache lines
	maxTableSlots = 1 << 21 // 48 MiB: three million values at most, before any is forgotten
	minTableSlots = 1 << 10
)

func newTable() *table { return newTableOf(minTableSlots) }

func newTableOf(slots int) *table {
	return &table{slots: make([]slot, slots), mask: uint64(slots/bucketSlots - 1)}
}

func (t *table) bucket(k key) []slot {
	i := (k.a & t.mask) * bucketSlots
	return t.slots[i : i+bucketSlots : i+bucketSlots]
}

// tick advances the clock, renumbering the slots' stamps from 1 in their
// order when it would wrap.
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
	b := t.bucket(k)
	for i := range b {
		if b[i].when != 0 && b[i].k == k {
			b[i].when = t.tick()
			return b[i].id, true
		}
	}
	return 0, false
}

// insert stores id under k, which is not in the table.
func (t *table) insert(k key, id uint32) {
	if t.used >= len(t.slots)/2 && len(t.slots) < maxTableSlots {
		t.grow()
	}
	b := t.bucket(k)
	victim := 0
	for i := range b {
		if b[i].when == 0 {
			victim = i
			t.used++
			break
		}
		if b[i].when < b[victim].when {
			victim = i
		}
	}
	b[victim] = slot{k: k, id: id, when: t.tick()}
}

// grow doubles the table, keeping every entry.
func (t *table) grow() {
	old := t.slots
	n := newTableOf(2 * len(old))
	n.clock = t.clock
	for _, s := range old {
		if s.when == 0 {
			continue
		}
		b := n.bucket(s.k)
		for i := range b {
			if b[i].when == 0 {
				b[i] = s
				n.used++
				break
			}
		}
		// A full bucket in a table half as full as before: the entry is
		// dropped, as insert would drop the oldest.
	}
	*t = *n
}

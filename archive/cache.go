package archive

import (
	"container/list"
	"sync"
)

// cacheBudget is the most decoded frames a Reader keeps, in bytes;
// hotBudget the most entry text it keeps besides, for entries whose frames
// are gone: values that recur across the whole archive. ppmCacheBudget
// is cacheBudget once the Reader has met a ppm frame (m2m-batch --max):
// such a frame takes seconds to decode again, where a zstd frame takes
// milliseconds, and its frames are 16 MiB by default, so 64 MiB held
// four. Decoding an archive holds a dictionary, a templates frame, the
// frame the blocks refer to and those decoded ahead of them; with four,
// frames evicted while still in use were decoded up to four times (a
// 315 MB input took 64-118 s to decode on two cores, 34-46 s with each
// frame decoded once).
const (
	cacheBudget    = 64 << 20
	ppmCacheBudget = 160 << 20
	hotBudget      = 16 << 20
)

// A cache holds decoded blocks by number, least recently used first out
// past its budget. A block is loaded once however many goroutines ask for
// it at the same time.
type cache struct {
	mu     sync.Mutex
	budget int
	size   int
	items  map[int]*cacheItem
	lru    list.List // of *cacheItem, most recent at the front
}

type cacheItem struct {
	block int
	ready chan struct{} // closed once loaded
	v     any
	size  int
	err   error
	elem  *list.Element // nil while loading, or once evicted
}

func (c *cache) init(budget int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget, c.size, c.items = budget, 0, map[int]*cacheItem{}
	c.lru.Init()
}

// prefetch loads block b with load unless the cache holds it or is loading
// it already: it never waits for another's load.
func (c *cache) prefetch(b int, load func() (any, int, error)) error {
	c.mu.Lock()
	_, ok := c.items[b]
	c.mu.Unlock()
	if ok {
		return nil
	}
	_, err := c.get(b, load)
	return err
}

// wait returns block b if the cache holds it or is loading it (then once
// loaded), without loading it itself; ok is false if the cache has none,
// or its load failed.
func (c *cache) wait(b int) (v any, ok bool) {
	c.mu.Lock()
	it, ok := c.items[b]
	if ok && it.elem != nil {
		c.lru.MoveToFront(it.elem)
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	<-it.ready
	return it.v, it.err == nil
}

// grow raises the budget to budget, if it is lower.
func (c *cache) grow(budget int) {
	c.mu.Lock()
	c.budget = max(c.budget, budget)
	c.mu.Unlock()
}

// peek returns block b if the cache holds it, loaded.
func (c *cache) peek(b int) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[b]
	if !ok || it.elem == nil {
		return nil, false
	}
	c.lru.MoveToFront(it.elem)
	return it.v, true
}

// get returns block b, loading it with load if the cache lacks it. An
// error is not kept: the next get loads again.
func (c *cache) get(b int, load func() (any, int, error)) (any, error) {
	c.mu.Lock()
	if it, ok := c.items[b]; ok {
		if it.elem != nil {
			c.lru.MoveToFront(it.elem)
		}
		c.mu.Unlock()
		<-it.ready
		return it.v, it.err
	}
	it := &cacheItem{block: b, ready: make(chan struct{})}
	c.items[b] = it
	c.mu.Unlock()

	it.v, it.size, it.err = load()
	close(it.ready)

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items[b] != it {
		return it.v, it.err // the cache was reset meanwhile
	}
	if it.err != nil {
		delete(c.items, b)
		return it.v, it.err
	}
	it.elem = c.lru.PushFront(it)
	c.size += it.size
	for c.size > c.budget && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*cacheItem)
		old.elem = nil
		delete(c.items, old.block)
		c.size -= old.size
	}
	return it.v, nil
}

// replace puts v, of size bytes, in place of what the cache holds for
// block b, if anything: a block decoded further than before.
func (c *cache) replace(b int, v any, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[b]
	if !ok || it.elem == nil {
		return
	}
	c.size += size - it.size
	it.v, it.size = v, size
	c.lru.MoveToFront(it.elem)
}

// hotEntries keeps copies of entries by kind and id, least recently used
// first out past its budget.
type hotEntries struct {
	mu     sync.Mutex
	budget int
	size   int
	items  map[uint64]*list.Element // of *hotEntry
	lru    list.List
}

type hotEntry struct {
	key  uint64
	text []byte
	base uint32 // a template's: see storeBlock.entry
}

func (h *hotEntries) init(budget int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.budget, h.size, h.items = budget, 0, map[uint64]*list.Element{}
	h.lru.Init()
}

func (h *hotEntries) get(key uint64) ([]byte, uint32, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.items[key]
	if !ok {
		return nil, 0, false
	}
	h.lru.MoveToFront(e)
	he := e.Value.(*hotEntry)
	return he.text, he.base, true
}

// put keeps a copy of text, and base, under key.
func (h *hotEntries) put(key uint64, text []byte, base uint32) {
	if len(text) > h.budget/4 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.items[key]; ok {
		return
	}
	h.items[key] = h.lru.PushFront(&hotEntry{key, append([]byte(nil), text...), base})
	h.size += len(text)
	for h.size > h.budget {
		old := h.lru.Remove(h.lru.Back()).(*hotEntry)
		delete(h.items, old.key)
		h.size -= len(old.text)
	}
}

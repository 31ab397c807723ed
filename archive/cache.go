package archive

import (
	"container/list"
	"sync"
)

// cacheBudget is the most decoded frames a Reader keeps, in bytes.
const cacheBudget = 64 << 20

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

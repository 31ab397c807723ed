// Package flow runs the parallel stages of m2m's pipelines: a producer,
// a pool of workers and a consumer that receives the workers' results in
// the order of the jobs, with the bytes in flight between them bounded.
package flow

import (
	"context"
	"sync"
)

// budget counts the bytes in flight and makes those who would go over
// wait. The job the consumer waits on (the head) never waits, so the
// pipeline always moves: every job before it is done, and every byte
// counted belongs to it or to a job after it, which will become the head
// in turn.
type budget struct {
	mu      sync.Mutex
	cond    sync.Cond
	limit   int64
	used    int64
	head    uint64 // the job the consumer is on
	stopped bool
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond.L = &b.mu
	return b
}

// acquire counts n bytes for job seq, waiting while they would exceed the
// limit and seq is not the head. It returns false if the run stopped.
func (b *budget) acquire(seq uint64, n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.stopped && seq != b.head && b.used+int64(n) > b.limit {
		b.cond.Wait()
	}
	b.used += int64(n)
	return !b.stopped
}

func (b *budget) release(n int) {
	b.mu.Lock()
	b.used -= int64(n)
	b.mu.Unlock()
	b.cond.Broadcast()
}

// advance makes seq the head.
func (b *budget) advance(seq uint64) {
	b.mu.Lock()
	b.head = seq
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *budget) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// piece is one result of a job, or (last) the end of its results.
type piece[R any] struct {
	r    R
	size int
	last bool
	err  error
}

// Ordered runs a producer, n workers and a consumer. produce emits jobs,
// each with the bytes it holds; each job goes to a free worker (work gets
// the worker's index, so it can keep per-worker state), which sends its
// results, one or several, each with its size; consume receives them in
// the order the jobs were emitted, and each job's in the order sent. At
// most queue jobs wait for a worker, and the bytes of jobs and results
// not yet consumed are bounded by limit (see type budget). The first
// error, from any of the three or from ctx, stops the others, and is what
// Ordered returns.
func Ordered[J, R any](ctx context.Context, n, queue int, limit int64,
	produce func(ctx context.Context, emit func(j J, size int) error) error,
	work func(worker int, j J, send func(r R, size int) error) error,
	consume func(R) error,
) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b := newBudget(limit)
	context.AfterFunc(ctx, b.stop)
	type task struct {
		seq  uint64
		j    J
		size int
		out  chan piece[R]
	}
	tasks := make(chan task, queue)
	order := make(chan task, queue)

	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for t := range tasks {
				if ctx.Err() != nil {
					continue // the consumer has stopped reading
				}
				send := func(r R, size int) error {
					if !b.acquire(t.seq, size) {
						return ctx.Err()
					}
					select {
					case t.out <- piece[R]{r: r, size: size}:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				err := work(w, t.j, send)
				select {
				case t.out <- piece[R]{last: true, err: err}:
				case <-ctx.Done():
				}
			}
		})
	}

	var produceErr error
	wg.Go(func() {
		defer close(tasks)
		defer close(order)
		var seq uint64
		emit := func(j J, size int) error {
			if !b.acquire(seq, size) {
				return ctx.Err()
			}
			t := task{seq, j, size, make(chan piece[R], 4)}
			seq++
			select {
			case order <- t:
			case <-ctx.Done():
				return ctx.Err()
			}
			tasks <- t // workers always drain tasks, so this ends
			return nil
		}
		if produceErr = produce(ctx, emit); produceErr != nil {
			cancel()
		}
	})

	var err error
consumer:
	for t := range order {
		for {
			var p piece[R]
			select {
			case p = <-t.out:
			case <-ctx.Done():
				break consumer
			}
			if p.last {
				err = p.err
				break
			}
			err = consume(p.r)
			b.release(p.size)
			if err != nil {
				break
			}
		}
		if err != nil {
			break
		}
		b.release(t.size)
		b.advance(t.seq + 1)
	}
	cancel()
	wg.Wait()
	if err == nil {
		err = produceErr
	}
	if err == nil {
		err = parent.Err() // only the parent cancels without an error of ours
	}
	return err
}

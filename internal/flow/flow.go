// Package flow runs the parallel stages of m2m's pipelines: a producer,
// a pool of workers and a consumer that receives the workers' results in
// the order of the jobs, with the bytes in flight between them bounded.
package flow

import (
	"context"
	"errors"
	"sync"
)

// budget counts the bytes in flight and makes those who would go over
// wait. The job the consumer waits on (the head) waits only while the
// consumer has pieces of its own to take, whose release wakes it, so the
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

// acquire counts n bytes for job seq, whose pieces not yet consumed are
// in out, waiting while they would exceed the limit, unless seq is the
// head and out is empty. It returns false if the run stopped.
func (b *budget) acquire(seq uint64, n int, out interface{ pending() bool }) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.stopped && b.used+int64(n) > b.limit && (seq != b.head || out.pending()) {
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

// results holds a job's pieces until the consumer takes them. Only the
// budget bounds them: a bound on their number (a channel of four, before)
// stopped a worker a few pieces into any job but the head, so with jobs
// of many pieces (a records block decodes to thirty-two) one worker at a
// time was busy: archive decompression ran 1.4x faster on two workers
// than on one.
type results[R any] struct {
	mu    sync.Mutex
	q     []piece[R]
	ready chan struct{} // holds a token when q has gained a piece
}

func newResults[R any]() *results[R] { return &results[R]{ready: make(chan struct{}, 1)} }

func (rs *results[R]) push(p piece[R]) {
	rs.mu.Lock()
	rs.q = append(rs.q, p)
	rs.mu.Unlock()
	select {
	case rs.ready <- struct{}{}:
	default: // a token is there already
	}
}

func (rs *results[R]) pending() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.q) > 0
}

// pop returns the first piece, waiting for one, unless done is closed
// first. Once done is closed it returns none: a worker's error then may
// be the stop itself, not its cause.
func (rs *results[R]) pop(done <-chan struct{}) (piece[R], bool) {
	for {
		select {
		case <-done:
			return piece[R]{}, false
		default:
		}
		rs.mu.Lock()
		if len(rs.q) > 0 {
			p := rs.q[0]
			rs.q[0] = piece[R]{}
			rs.q = rs.q[1:]
			rs.mu.Unlock()
			return p, true
		}
		rs.mu.Unlock()
		select {
		case <-rs.ready:
		case <-done:
			return piece[R]{}, false
		}
	}
}

// Side, as the size of a job emitted, makes it a side job: it goes to a
// free worker in its turn like any job, but it sends no results and the
// consumer does not wait for it. A job that prepares what later jobs
// need (decodes a frame ahead of the blocks that refer to it) is one: in
// the consumer's order it would hold up the results of every job emitted
// after it, done or not, until it ended. Its error stops the run like any
// other.
const Side = -1

// errSideSend is what a side job's send returns: it has no results.
var errSideSend = errors.New("flow: a side job sent a result")

// Ordered runs a producer, n workers and a consumer. produce emits jobs,
// each with the bytes it holds; each job goes to a free worker (work gets
// the worker's index, so it can keep per-worker state), which sends its
// results, one or several, each with its size; consume receives them in
// the order the jobs were emitted, and each job's in the order sent. At
// most queue jobs wait for a worker, and the bytes of jobs and results
// not yet consumed are bounded by limit (see type budget); only their
// bytes are, so a worker may run ahead of the consumer by many results
// (and by any number of results of size 0). The first
// error, from any of the three or from ctx, stops the others, and is what
// Ordered returns; a worker's and the producer's come in order: the
// results of every job emitted before them are consumed first (those a
// failed job sent before its error too), so that a decoder of a file cut
// short writes all that it could read.
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
		out  *results[R] // nil for a side job
	}
	var sideErr error
	var sideOnce sync.Once
	tasks := make(chan task, queue)
	order := make(chan task, queue)

	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for t := range tasks {
				if ctx.Err() != nil {
					continue // the consumer has stopped reading
				}
				if t.out == nil {
					if err := work(w, t.j, func(R, int) error { return errSideSend }); err != nil {
						sideOnce.Do(func() { sideErr = err })
						cancel()
					}
					continue
				}
				send := func(r R, size int) error {
					if !b.acquire(t.seq, size, t.out) {
						return ctx.Err()
					}
					t.out.push(piece[R]{r: r, size: size})
					return nil
				}
				err := work(w, t.j, send)
				t.out.push(piece[R]{last: true, err: err})
			}
		})
	}

	var produceErr error
	wg.Go(func() {
		defer close(tasks)
		defer close(order)
		var seq uint64
		emit := func(j J, size int) error {
			if size == Side {
				select {
				case tasks <- task{j: j}:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			t := task{seq, j, size, newResults[R]()}
			if !b.acquire(seq, size, t.out) {
				return ctx.Err()
			}
			seq++
			select {
			case order <- t:
			case <-ctx.Done():
				return ctx.Err()
			}
			tasks <- t // workers always drain tasks, so this ends
			return nil
		}
		// An error of the producer's (input cut short or damaged) comes
		// in its place, after the results of every job emitted before it:
		// what could be read is written.
		produceErr = produce(ctx, emit)
	})

	var err error
consumer:
	for t := range order {
		for {
			p, ok := t.out.pop(ctx.Done())
			if !ok {
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
	if sideErr != nil && (err == nil || errors.Is(err, context.Canceled) && parent.Err() == nil) {
		err = sideErr // what the others saw was the stop it caused
	}
	if err == nil {
		err = produceErr
	}
	if err == nil {
		err = parent.Err() // only the parent cancels without an error of ours
	}
	return err
}

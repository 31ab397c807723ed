package pipeline

import (
	"context"
	"sync"
)

// result is what a worker makes of one job.
type result[R any] struct {
	r   R
	err error
}

// ordered runs a producer, n workers and a consumer. produce emits jobs;
// each goes to a free worker (work gets the worker's index, so it can keep
// per-worker state), and consume receives the results in the order the jobs
// were emitted. At most about 2*queue+n jobs are in flight (queued for the
// consumer, queued for the workers, being worked on), so memory is bounded
// by that many jobs and results. The first error, from any of the
// three or from ctx, stops the others, and is what ordered returns.
func ordered[J, R any](ctx context.Context, n, queue int,
	produce func(ctx context.Context, emit func(J) error) error,
	work func(worker int, j J) (R, error),
	consume func(R) error,
) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type task struct {
		j   J
		out chan result[R]
	}
	tasks := make(chan task, queue)
	order := make(chan chan result[R], queue)

	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for t := range tasks {
				r, err := work(w, t.j)
				t.out <- result[R]{r, err} // buffered: never blocks
			}
		})
	}

	var produceErr error
	wg.Go(func() {
		defer close(tasks)
		defer close(order)
		emit := func(j J) error {
			out := make(chan result[R], 1)
			select {
			case order <- out:
			case <-ctx.Done():
				return ctx.Err()
			}
			tasks <- task{j, out} // workers always drain tasks, so this ends
			return nil
		}
		if produceErr = produce(ctx, emit); produceErr != nil {
			cancel()
		}
	})

	var err error
	for out := range order {
		res := <-out
		if err != nil {
			continue // drain, so the workers and producer can finish
		}
		if res.err != nil {
			err = res.err
		} else if ctx.Err() == nil {
			err = consume(res.r)
		}
		if err != nil {
			cancel()
		}
	}
	wg.Wait()
	if err == nil {
		err = produceErr
	}
	if err == nil {
		err = ctx.Err() // only the parent cancels without an error of ours
	}
	return err
}

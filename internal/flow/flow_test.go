package flow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrdered: results come in order; bytes in flight stay within the
// budget, except for the head job's; a job bigger than the whole budget
// still goes through; errors from any stage stop the run.
func TestOrdered(t *testing.T) {
	const limit, maxPiece = 1000, 200
	for _, workers := range []int{1, 2, 7} {
		rng := rand.New(rand.NewPCG(uint64(workers), 1))
		type job struct {
			n      int
			pieces []int // sizes of the results to send
		}
		var jobs []job
		for i := range 300 {
			j := job{n: i}
			for range rng.IntN(20) {
				j.pieces = append(j.pieces, rng.IntN(maxPiece))
			}
			jobs = append(jobs, j)
		}
		var inFlight, peak atomic.Int64
		var consumed []int
		type result struct{ job, piece, size int }
		err := Ordered(context.Background(), workers, 2*workers, limit,
			func(ctx context.Context, emit func(job, int) error) error {
				for _, j := range jobs {
					if err := emit(j, 10); err != nil {
						return err
					}
				}
				return nil
			},
			func(_ int, j job, send func(result, int) error) error {
				for i, size := range j.pieces {
					if v := inFlight.Add(int64(size)); v > peak.Load() {
						peak.Store(v)
					}
					if err := send(result{j.n, i, size}, size); err != nil {
						return err
					}
				}
				return nil
			},
			func(r result) error {
				if len(consumed) > 0 && consumed[len(consumed)-1] > r.job {
					t.Fatalf("job %d after job %d", r.job, consumed[len(consumed)-1])
				}
				consumed = append(consumed, r.job)
				inFlight.Add(-int64(r.size))
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, j := range jobs {
			want += len(j.pieces)
		}
		if len(consumed) != want {
			t.Errorf("%d workers: %d results, want %d", workers, len(consumed), want)
		}
		// Results sent and not consumed are within the budget, but for
		// one of the head's, which goes over it only when the consumer
		// has taken all its others; each worker holds one more, not yet
		// sent.
		if p := peak.Load(); p > limit+int64(1+workers)*maxPiece {
			t.Errorf("%d workers: %d bytes in flight, budget %d", workers, p, limit)
		}
	}

	// Results larger than the whole budget go through, one at a time.
	var got []int
	err := Ordered(context.Background(), 3, 6, limit,
		func(ctx context.Context, emit func(int, int) error) error {
			for i := range 20 {
				if err := emit(i, 2*limit); err != nil {
					return err
				}
			}
			return nil
		},
		func(_ int, j int, send func(int, int) error) error {
			for range 3 {
				if err := send(j, 5*limit); err != nil {
					return err
				}
			}
			return nil
		},
		func(r int) error { got = append(got, r); return nil })
	if err != nil || len(got) != 60 {
		t.Errorf("oversized jobs: %v, %d results", err, len(got))
	}

	// Errors from each stage end the run with that error; a producer's or
	// a worker's comes after the results of every job before it.
	boom := errors.New("boom")
	for stage := range 3 {
		var got []int
		err := Ordered(context.Background(), 2, 4, limit,
			func(ctx context.Context, emit func(int, int) error) error {
				for i := range 1000 {
					if stage == 0 && i == 500 {
						return boom
					}
					if err := emit(i, 1); err != nil {
						return err
					}
				}
				return nil
			},
			func(_ int, j int, send func(int, int) error) error {
				if stage == 1 && j == 500 {
					return boom
				}
				return send(j, 600) // two of these do not fit at once
			},
			func(r int) error {
				if stage == 2 && r == 700 {
					return boom
				}
				got = append(got, r)
				return nil
			})
		if !errors.Is(err, boom) {
			t.Errorf("error in stage %d: ordered returned %v", stage, err)
		}
		if stage < 2 && (len(got) != 500 || got[499] != 499) {
			t.Errorf("error in stage %d: %d results before it, want the 500 of the jobs before it", stage, len(got))
		}
	}
	// A cancelled parent ends the run with its error.
	ctx, cancel := context.WithCancel(context.Background())
	err = Ordered(ctx, 2, 4, limit,
		func(ctx context.Context, emit func(int, int) error) error {
			for i := 0; ; i++ {
				if i == 100 {
					cancel()
				}
				if err := emit(i, 1); err != nil {
					return err
				}
			}
		},
		func(_ int, j int, send func(int, int) error) error { return send(j, 1) },
		func(int) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestRunAhead: a worker goes on sending the pieces of a job that is not
// the head, within the budget, however many they are, while the head's
// worker is still busy: job 0 ends only once job 1 has sent all of its
// pieces. (A bound of four pieces a job held job 1's worker back until
// job 0 was consumed: one worker at a time did work.)
func TestRunAhead(t *testing.T) {
	const pieces = 64
	sent := make(chan struct{})
	var got []int
	err := Ordered(context.Background(), 2, 4, 1<<20,
		func(ctx context.Context, emit func(int, int) error) error {
			for j := range 2 {
				if err := emit(j, 1); err != nil {
					return err
				}
			}
			return nil
		},
		func(_ int, j int, send func(int, int) error) error {
			if j == 0 {
				select {
				case <-sent:
				case <-time.After(10 * time.Second):
					return errors.New("job 1's worker was held back while job 0 was busy")
				}
				return send(0, 1)
			}
			for i := range pieces {
				if err := send(1+i, 1); err != nil {
					return err
				}
			}
			close(sent)
			return nil
		},
		func(r int) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+pieces || got[0] != 0 || got[pieces] != pieces {
		t.Fatalf("results %v", got)
	}
}

// TestSide: the consumer does not wait for a side job (the side job here
// ends only once the last ordered job's result has been consumed), a side
// job cannot send, and its error, not the stop it causes, is what Ordered
// returns.
func TestSide(t *testing.T) {
	consumed := make(chan struct{})
	var got []int
	err := Ordered(context.Background(), 2, 4, 1<<20,
		func(ctx context.Context, emit func(int, int) error) error {
			if err := emit(-1, Side); err != nil {
				return err
			}
			for j := range 10 {
				if err := emit(j, 1); err != nil {
					return err
				}
			}
			return nil
		},
		func(_ int, j int, send func(int, int) error) error {
			if j >= 0 {
				return send(j, 1)
			}
			if err := send(j, 1); !errors.Is(err, errSideSend) {
				return fmt.Errorf("a side job's send: %v", err)
			}
			select {
			case <-consumed:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the consumer waited for the side job")
			}
		},
		func(r int) error {
			if got = append(got, r); r == 9 {
				close(consumed)
			}
			return nil
		})
	if err != nil || len(got) != 10 {
		t.Fatalf("err %v, results %v", err, got)
	}

	bad := errors.New("side job failed")
	for _, workers := range []int{1, 2} {
		err = Ordered(context.Background(), workers, 4, 1<<20,
			func(ctx context.Context, emit func(int, int) error) error {
				for j := range 100 {
					size := 1
					if j == 50 {
						size = Side
					}
					if err := emit(j, size); err != nil {
						return err
					}
				}
				return nil
			},
			func(_ int, j int, send func(int, int) error) error {
				if j == 50 {
					return bad
				}
				time.Sleep(100 * time.Microsecond)
				return send(j, 1)
			},
			func(int) error { return nil })
		if err != bad {
			t.Errorf("workers=%d: %v, want the side job's error", workers, err)
		}
	}
}

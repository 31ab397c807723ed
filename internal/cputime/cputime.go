// Package cputime reads the CPU time the process has used, for benchmarks
// that run on shared machines: where other work takes the cores, wall time
// grows with the load and CPU time does not (much), so the two side by side
// tell the cost of the code from the queue for the cores.
package cputime

import "time"

// Since returns the CPU time the process has used since start, a value of
// Now; zero where the system does not say.
func Since(start time.Duration) time.Duration {
	if now := Now(); now > 0 {
		return now - start
	}
	return 0
}

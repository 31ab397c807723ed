//go:build !unix

package main

import "os"

// lockTemp does nothing where there is no flock: stale temporary outputs
// are not told from live ones, and stay.
func lockTemp(*os.File) {}

// removeStale does nothing where there is no flock (see lockTemp).
func removeStale(dir, base string) {}

//go:build !linux

package ppm

// adviseHuge does nothing but on Linux.
func adviseHuge([]uint32) {}

// Package cputest runs tests and benchmarks once per kernel registered with
// [cpu.Register], and lets CI assert which kernel a build really selects.
package cputest

import (
	"os"
	"strings"
	"testing"

	"github.com/m2m-go/m2m/internal/cpu"
)

// EnvRequire names the kernels a test run must have selected by default, as
// package=kernel pairs: M2M_REQUIRE_KERNELS=varint=avx512vbmi2 fails
// [CheckRequired] on a build or machine that would silently run another
// kernel (a purego build, a missing CPU feature, a GODEBUG tier).
const EnvRequire = "M2M_REQUIRE_KERNELS"

// CheckRequired fails t if [EnvRequire] names a kernel for pkg that is not
// the one selected by default.
func CheckRequired(t *testing.T, pkg string) {
	t.Helper()
	cpu.Reset(pkg)
	for pair := range strings.SplitSeq(os.Getenv(EnvRequire), ",") {
		p, want, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || p != pkg {
			continue
		}
		if got := cpu.Selected(pkg); got != want {
			t.Errorf("%s: %s selects kernel %q by default, want %q (features present: %v)",
				EnvRequire, pkg, got, want, cpu.Features())
		}
	}
}

// Kernels returns the names of pkg's kernels that can run here, best first,
// ending with [cpu.Generic].
func Kernels(pkg string) []string {
	var names []string
	for _, k := range cpu.List(pkg) {
		if k.Available {
			names = append(names, k.Name)
		}
	}
	return names
}

// Run runs f as subtest "impl=<name>" for each kernel of pkg available here,
// with that kernel selected, and restores the default afterwards. Tests using
// it must not call t.Parallel.
func Run(t *testing.T, pkg string, f func(t *testing.T)) {
	t.Helper()
	for _, name := range Kernels(pkg) {
		t.Run("impl="+name, func(t *testing.T) {
			use(t, pkg, name)
			f(t)
		})
	}
}

// Bench is [Run] for benchmarks.
func Bench(b *testing.B, pkg string, f func(b *testing.B)) {
	b.Helper()
	for _, name := range Kernels(pkg) {
		b.Run("impl="+name, func(b *testing.B) {
			use(b, pkg, name)
			f(b)
		})
	}
}

// use selects kernel name of pkg for the rest of tb and restores the default
// when tb ends.
func use(tb testing.TB, pkg, name string) {
	tb.Helper()
	if err := cpu.Select(pkg, name); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cpu.Reset(pkg) })
}

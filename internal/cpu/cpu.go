// Package cpu is the one place m2m looks at the processor: it detects the CPU
// features the assembly kernels need (with github.com/klauspost/cpuid/v2) and
// keeps the registry that chooses one kernel per package.
//
// Detection runs once, at package initialisation. The set can be narrowed,
// never widened, with the same GODEBUG settings the Go runtime reads:
// GODEBUG=cpu.avx512f=off clears one feature and GODEBUG=cpu.all=off clears
// all of them, so one setting drives both the standard library's assembly
// (hash/crc32, crypto) and ours.
package cpu

import (
	"os"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// A Feature is one instruction-set extension a kernel may execute.
type Feature uint8

// The features m2m's kernels use. A kernel lists every one it executes, and
// is available only when all of them are present.
const (
	// amd64
	SSE41 Feature = iota
	POPCNT
	LZCNT
	BMI1
	BMI2
	AVX2
	PCLMULQDQ
	AVX512F
	AVX512BW
	AVX512VL
	AVX512VBMI
	AVX512VBMI2
	VPCLMULQDQ

	// arm64
	ASIMD
	PMULL
	CRC32

	numFeatures
)

// features maps each Feature to its GODEBUG name (the Go runtime's spelling
// where it has one) and to cpuid's identifier.
var features = [numFeatures]struct {
	name string
	id   cpuid.FeatureID
}{
	SSE41:       {"sse41", cpuid.SSE4},
	POPCNT:      {"popcnt", cpuid.POPCNT},
	LZCNT:       {"lzcnt", cpuid.LZCNT},
	BMI1:        {"bmi1", cpuid.BMI1},
	BMI2:        {"bmi2", cpuid.BMI2},
	AVX2:        {"avx2", cpuid.AVX2},
	PCLMULQDQ:   {"pclmulqdq", cpuid.CLMUL},
	AVX512F:     {"avx512f", cpuid.AVX512F},
	AVX512BW:    {"avx512bw", cpuid.AVX512BW},
	AVX512VL:    {"avx512vl", cpuid.AVX512VL},
	AVX512VBMI:  {"avx512vbmi", cpuid.AVX512VBMI},
	AVX512VBMI2: {"avx512vbmi2", cpuid.AVX512VBMI2},
	VPCLMULQDQ:  {"vpclmulqdq", cpuid.VPCLMULQDQ},
	ASIMD:       {"asimd", cpuid.ASIMD},
	PMULL:       {"pmull", cpuid.PMULL},
	CRC32:       {"crc32", cpuid.CRC32},
}

// String returns the feature's GODEBUG name, e.g. "avx512vbmi2".
func (f Feature) String() string {
	if f >= numFeatures {
		return "unknown"
	}
	return features[f].name
}

// present holds the detected features after GODEBUG narrowing.
var present = detect(os.Getenv("GODEBUG"))

func detect(godebug string) (has [numFeatures]bool) {
	for f := range numFeatures {
		has[f] = cpuid.CPU.Supports(features[f].id)
	}
	// Apply the cpu.* options in order, as the runtime does: later settings
	// win, "on" can only restore what the hardware has.
	hw := has
	for field := range strings.SplitSeq(godebug, ",") {
		key, value, ok := strings.Cut(field, "=")
		name, isCPU := strings.CutPrefix(key, "cpu.")
		if !ok || !isCPU || (value != "on" && value != "off") {
			continue
		}
		for f := range numFeatures {
			if name == "all" || name == features[f].name {
				has[f] = value == "on" && hw[f]
			}
		}
	}
	return has
}

// Has reports whether every feature in fs is present and not disabled.
func Has(fs ...Feature) bool {
	for _, f := range fs {
		if f >= numFeatures || !present[f] {
			return false
		}
	}
	return true
}

// Features returns the names of the present features m2m uses, in a fixed
// order, for diagnostics such as `m2m-batch bench`.
func Features() []string {
	var names []string
	for f := range numFeatures {
		if present[f] {
			names = append(names, features[f].name)
		}
	}
	return names
}

// Model returns the processor's brand string, or "unknown".
func Model() string {
	if name := strings.TrimSpace(cpuid.CPU.BrandName); name != "" {
		return name
	}
	return "unknown"
}

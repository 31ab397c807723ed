package cpu

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Generic is the name of every package's pure-Go kernel. It is always
// available and is what runs when no registered kernel is selected.
const Generic = "generic"

// EnvKernels is the environment variable that overrides the default choice,
// as a comma-separated list of package=kernel pairs, for example
// M2M_KERNELS=varint=generic,crc=stdlib. It is read when a package registers.
const EnvKernels = "M2M_KERNELS"

// A Kernel is one accelerated implementation of a package's algorithm.
type Kernel struct {
	// Name says which instructions the kernel needs, e.g. "avx512vbmi2".
	Name string
	// Needs lists every feature the kernel executes.
	Needs []Feature
	// Use is the package's dispatch flag. The registry sets it to true for
	// the selected kernel and to false for all others; the package's
	// dispatcher reads it on every call.
	Use *bool
}

// Available reports whether every feature k needs is present.
func (k Kernel) Available() bool { return Has(k.Needs...) }

// Info describes one kernel of a package for listings.
type Info struct {
	Name      string
	Needs     []Feature
	Available bool
	Selected  bool
}

type registration struct {
	pkg      string
	kernels  []Kernel // best first; Generic is implicit and last
	selected string
}

var (
	mu       sync.Mutex
	registry = map[string]*registration{}
	warnings []string
)

// Register declares pkg's kernels, best first, and selects the default: the
// kernel named for pkg in [EnvKernels] if it is available, else the first
// available one, else [Generic]. Packages call it once, from init; a
// package built with the purego tag registers no kernels.
func Register(pkg string, kernels ...Kernel) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[pkg]; dup {
		panic("cpu: package " + pkg + " registered twice")
	}
	r := &registration{pkg: pkg, kernels: kernels}
	registry[pkg] = r
	r.selectDefault()
}

// selectDefault applies the environment override, recording a warning when
// it names a kernel that is unknown or unavailable here.
func (r *registration) selectDefault() {
	want, ok := envChoice(r.pkg)
	if ok {
		if err := r.sel(want); err == nil {
			return
		} else if !slices.Contains(warnings, err.Error()) {
			warnings = append(warnings, fmt.Sprintf("%s: %v; using the default", EnvKernels, err))
		}
	}
	for _, k := range r.kernels {
		if k.Available() {
			r.set(k.Name)
			return
		}
	}
	r.set(Generic)
}

func envChoice(pkg string) (string, bool) {
	for pair := range strings.SplitSeq(os.Getenv(EnvKernels), ",") {
		p, k, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && p == pkg {
			return k, true
		}
	}
	return "", false
}

func (r *registration) sel(name string) error {
	if name == Generic {
		r.set(Generic)
		return nil
	}
	for _, k := range r.kernels {
		if k.Name != name {
			continue
		}
		if !k.Available() {
			return fmt.Errorf("kernel %s=%s needs %s, not all present", r.pkg, name, featureList(k.Needs))
		}
		r.set(name)
		return nil
	}
	return fmt.Errorf("unknown kernel %s=%s (have %s)", r.pkg, name, strings.Join(r.names(), ", "))
}

func (r *registration) set(name string) {
	for _, k := range r.kernels {
		*k.Use = k.Name == name
	}
	r.selected = name
}

func (r *registration) names() []string {
	var names []string
	for _, k := range r.kernels {
		names = append(names, k.Name)
	}
	return append(names, Generic)
}

func featureList(fs []Feature) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.String())
	}
	return strings.Join(s, "+")
}

// ErrUnknownPackage is returned for a package that registered no kernels.
var ErrUnknownPackage = errors.New("cpu: no kernels registered for package")

func lookup(pkg string) (*registration, error) {
	r, ok := registry[pkg]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownPackage, pkg)
	}
	return r, nil
}

// Select makes name the kernel pkg uses. It fails, changing nothing, if the
// kernel is unknown or not available on this machine. Select is meant for
// tests, benchmarks and start-up code: it must not run concurrently with
// calls into pkg.
func Select(pkg, name string) error {
	mu.Lock()
	defer mu.Unlock()
	r, err := lookup(pkg)
	if err != nil {
		return err
	}
	return r.sel(name)
}

// Reset restores pkg's default selection (see [Register]).
func Reset(pkg string) {
	mu.Lock()
	defer mu.Unlock()
	if r, err := lookup(pkg); err == nil {
		r.selectDefault()
	}
}

// Selected returns the name of the kernel pkg uses now.
func Selected(pkg string) string {
	mu.Lock()
	defer mu.Unlock()
	if r, err := lookup(pkg); err == nil {
		return r.selected
	}
	return Generic
}

// List returns pkg's kernels, best first, ending with [Generic].
func List(pkg string) []Info {
	mu.Lock()
	defer mu.Unlock()
	r, err := lookup(pkg)
	if err != nil {
		return []Info{{Name: Generic, Available: true, Selected: true}}
	}
	var infos []Info
	for _, k := range r.kernels {
		infos = append(infos, Info{Name: k.Name, Needs: k.Needs, Available: k.Available(), Selected: k.Name == r.selected})
	}
	return append(infos, Info{Name: Generic, Available: true, Selected: r.selected == Generic})
}

// Packages returns the names of the packages that registered kernels, sorted.
func Packages() []string {
	mu.Lock()
	defer mu.Unlock()
	var pkgs []string
	for p := range registry {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	return pkgs
}

// Warnings returns the problems found in [EnvKernels]: kernels that are
// unknown or unavailable, and packages that registered nothing. Commands
// print them; the library never fails because of the environment.
func Warnings() []string {
	mu.Lock()
	defer mu.Unlock()
	out := slices.Clone(warnings)
	for pair := range strings.SplitSeq(os.Getenv(EnvKernels), ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		p, _, ok := strings.Cut(pair, "=")
		if !ok {
			out = append(out, fmt.Sprintf("%s: %q is not package=kernel", EnvKernels, pair))
		} else if _, known := registry[p]; !known {
			out = append(out, fmt.Sprintf("%s: no package %q has kernels", EnvKernels, p))
		}
	}
	return out
}

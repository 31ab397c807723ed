package cpu

import (
	"slices"
	"strings"
	"testing"
)

func TestDetectGODEBUG(t *testing.T) {
	hw := detect("")
	for _, tc := range []struct {
		godebug string
		want    func(f Feature) bool
	}{
		{"", func(f Feature) bool { return hw[f] }},
		{"cpu.all=off", func(Feature) bool { return false }},
		{"cpu.avx2=off", func(f Feature) bool { return f != AVX2 && hw[f] }},
		{"cpu.all=off,cpu.avx2=on", func(f Feature) bool { return f == AVX2 && hw[f] }},
		{"cpu.avx512f=off,cpu.avx512f=on", func(f Feature) bool { return hw[f] }},
		{"gctrace=1,cpu.bmi2=off,cpu.nonsense=off,cpu.avx2", func(f Feature) bool { return f != BMI2 && hw[f] }},
	} {
		got := detect(tc.godebug)
		for f := range numFeatures {
			if got[f] != tc.want(f) {
				t.Errorf("GODEBUG=%q: %v present = %v, want %v", tc.godebug, f, got[f], tc.want(f))
			}
		}
	}
}

func TestFeatureNames(t *testing.T) {
	seen := map[string]bool{}
	for f := range numFeatures {
		name := f.String()
		if name == "" || name == "unknown" || seen[name] || strings.ToLower(name) != name {
			t.Errorf("feature %d has name %q", f, name)
		}
		seen[name] = true
	}
	if got := numFeatures.String(); got != "unknown" {
		t.Errorf("out-of-range feature is %q", got)
	}
}

// register adds a throwaway package to the registry for one test.
func register(t *testing.T, pkg string, ks ...Kernel) {
	t.Helper()
	Register(pkg, ks...)
	t.Cleanup(func() {
		mu.Lock()
		delete(registry, pkg)
		warnings = nil
		mu.Unlock()
	})
}

func TestRegistry(t *testing.T) {
	var fast, missing bool
	register(t, "test", Kernel{Name: "missing", Needs: []Feature{numFeatures}, Use: &missing},
		Kernel{Name: "fast", Use: &fast}) // needs nothing, so always available
	if got := Selected("test"); got != "fast" || !fast || missing {
		t.Fatalf("default = %q (fast %v, missing %v), want the first available kernel", got, fast, missing)
	}
	want := []Info{{Name: "missing", Needs: []Feature{numFeatures}}, {Name: "fast", Available: true, Selected: true}, {Name: Generic, Available: true}}
	if got := List("test"); !slices.EqualFunc(got, want, func(a, b Info) bool {
		return a.Name == b.Name && a.Available == b.Available && a.Selected == b.Selected && slices.Equal(a.Needs, b.Needs)
	}) {
		t.Errorf("List = %+v, want %+v", got, want)
	}
	if err := Select("test", Generic); err != nil || fast || Selected("test") != Generic {
		t.Errorf("Select(generic) = %v; fast %v, selected %q", err, fast, Selected("test"))
	}
	if err := Select("test", "missing"); err == nil || missing || Selected("test") != Generic {
		t.Errorf("Select(missing) = %v; missing %v, selected %q", err, missing, Selected("test"))
	}
	if err := Select("test", "nope"); err == nil {
		t.Error("Select of an unknown kernel succeeded")
	}
	if err := Select("nopkg", Generic); err == nil {
		t.Error("Select in an unknown package succeeded")
	}
	Reset("test")
	if !fast || Selected("test") != "fast" {
		t.Errorf("Reset left %q selected", Selected("test"))
	}
	if !slices.Contains(Packages(), "test") {
		t.Errorf("Packages() = %v, missing test", Packages())
	}
}

func TestEnvOverride(t *testing.T) {
	t.Setenv(EnvKernels, "a=generic, b=missing,c=fast,nopkg=x,junk")
	var aFast, bFast, bMissing, cFast bool
	register(t, "a", Kernel{Name: "fast", Use: &aFast})
	register(t, "b", Kernel{Name: "missing", Needs: []Feature{numFeatures}, Use: &bMissing}, Kernel{Name: "fast", Use: &bFast})
	register(t, "c", Kernel{Name: "fast", Use: &cFast})
	if Selected("a") != Generic || aFast {
		t.Errorf("a=generic: selected %q", Selected("a"))
	}
	if Selected("b") != "fast" || bMissing {
		t.Errorf("b=missing: selected %q, want the default", Selected("b"))
	}
	if Selected("c") != "fast" {
		t.Errorf("c=fast: selected %q", Selected("c"))
	}
	w := strings.Join(Warnings(), "\n")
	for _, want := range []string{"b=missing needs unknown", `no package "nopkg"`, `"junk" is not package=kernel`} {
		if !strings.Contains(w, want) {
			t.Errorf("Warnings() = %q, want one containing %q", w, want)
		}
	}
}

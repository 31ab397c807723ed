package getopt

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// vars is what a test's flags write into.
type vars struct {
	decompress, stdout, keep bool
	verbose                  int
	threads, level           int
	output                   string
	budget                   time.Duration
}

func newSet(v *vars) *Set {
	var s Set
	s.Bool(&v.decompress, "decompress", 'd')
	s.Bool(&v.stdout, "stdout", 'c')
	s.Bool(&v.keep, "keep", 'k')
	s.Count(&v.verbose, "verbose", 'v')
	s.Int(&v.threads, "threads", 'T')
	s.Int(&v.level, "level", 0)
	s.String(&v.output, "output", 'o')
	s.Duration(&v.budget, "time", 0)
	s.Digits("level")
	return &s
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want vars
		rest []string
	}{
		{nil, vars{level: 3, keep: true}, nil},
		{[]string{"-dkc", "-T0", "in.jsonl"}, vars{decompress: true, stdout: true, keep: true, level: 3}, []string{"in.jsonl"}},
		{[]string{"in.jsonl", "-o", "out", "-19"}, vars{level: 19, keep: true, output: "out"}, []string{"in.jsonl"}},
		{[]string{"-T", "-1", "-vv", "--verbose"}, vars{threads: -1, verbose: 3, level: 3, keep: true}, nil},
		{[]string{"-dT2", "-oout", "--keep=false"}, vars{decompress: true, threads: 2, level: 3, output: "out"}, nil},
		{[]string{"-T=4", "--level=7", "--output", "-", "--time", "2s"}, vars{threads: 4, level: 7, keep: true, output: "-", budget: 2 * time.Second}, nil},
		{[]string{"-", "a", "--", "-d", "--x"}, vars{level: 3, keep: true}, []string{"-", "a", "-d", "--x"}},
		{[]string{"--output=a=b", "-o", ""}, vars{level: 3, keep: true, output: ""}, nil},
		{[]string{"--output=a=b"}, vars{level: 3, keep: true, output: "a=b"}, nil},
	} {
		v := vars{level: 3, keep: true}
		s := newSet(&v)
		if err := s.Parse(tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if v != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.args, v, tc.want)
		}
		if !reflect.DeepEqual(s.Args(), tc.rest) {
			t.Errorf("%q: args %q, want %q", tc.args, s.Args(), tc.rest)
		}
	}
}

func TestChanged(t *testing.T) {
	var v vars
	s := newSet(&v)
	if err := s.Parse([]string{"-k", "-5", "-T", "1"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"keep": true, "level": true, "threads": true, "decompress": false, "nope": false} {
		if s.Changed(name) != want {
			t.Errorf("Changed(%q) = %v", name, !want)
		}
	}
	if got := strings.Join(s.Names(), " "); got != "decompress stdout keep verbose threads level output time" {
		t.Errorf("Names: %s", got)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"--nope"}, "unknown flag --nope"},
		{[]string{"-x"}, "unknown flag -x"},
		{[]string{"-dx"}, "unknown flag -x in -dx"},
		{[]string{"-T"}, "-T needs a value"},
		{[]string{"--output"}, "--output needs a value"},
		{[]string{"-Tx"}, "-T x: want an integer"},
		{[]string{"--threads=1.5"}, "--threads 1.5: want an integer"},
		{[]string{"--level", ""}, `--level "": want an integer`},
		{[]string{"--keep=maybe"}, "--keep=maybe: want true or false"},
		{[]string{"--verbose=2"}, "--verbose takes no value"},
		{[]string{"--time", "5"}, "--time 5: want a duration"},
		{[]string{"-1x"}, "unknown flag -1 in -1x"},
	} {
		var v vars
		err := newSet(&v).Parse(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	var s Set // no Digits: -5 is an unknown flag
	if err := s.Parse([]string{"-5"}); err == nil || err.Error() != "unknown flag -5" {
		t.Errorf("-5 without Digits: %v", err)
	}
}

func TestDefineTwice(t *testing.T) {
	for name, define := range map[string]func(*Set){
		"long":  func(s *Set) { var b bool; s.Bool(&b, "keep", 0) },
		"short": func(s *Set) { var b bool; s.Bool(&b, "other", 'k') },
		"bad":   func(s *Set) { var b bool; s.Bool(&b, "a=b", 0) },
		"dash":  func(s *Set) { var b bool; s.Bool(&b, "x", '-') },
		"digit": func(s *Set) { s.Digits("keep") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			define(newSet(new(vars)))
		}()
	}
}

// FuzzParse: any command line parses or fails without a panic, and the
// arguments it leaves are arguments it was given, in order.
func FuzzParse(f *testing.F) {
	f.Add("-dkc\x00-T0\x00in\x00--\x00-x")
	f.Add("--output=a\x00-19\x00-vvT\x002")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		var v vars
		s := newSet(&v)
		if s.Parse(args) != nil {
			return
		}
		j := 0
		for _, a := range s.Args() {
			for j < len(args) && args[j] != a {
				j++
			}
			if j == len(args) {
				t.Fatalf("%q: left %q, not in order among the arguments", args, s.Args())
			}
			j++
		}
	})
}

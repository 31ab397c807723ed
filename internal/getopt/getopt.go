// Package getopt parses a command line the way GNU getopt_long does, which
// is how users of zstd, xz and gzip type one: short flags run together
// (-dkc), a short flag's value attached or apart (-T0, -T 0, -o FILE),
// long flags with = or a space (--level=5, --level 5), flags and files in
// any order, "--" ending the flags, and a lone "-" a file (standard input).
// Numeric levels (-1 ... -19) can be routed to an int flag.
//
// It is ours rather than github.com/spf13/pflag's because pflag imports
// package net (for its IP flags), and with net in a binary the Go
// toolchain links it against the C library whenever cgo is available:
// m2m-batch then started 0.7 ms slower, and a run that starts threads
// (--record N on a GiB archive) 2-3 ms slower, than the same program
// linked statically.
package getopt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Set is a set of flags and, once parsed, the arguments that were not
// flags. The zero value is an empty set. A flag's default is the value
// its variable holds when the command line is parsed.
type Set struct {
	flags  []*flag
	digits *flag // -N sets it to N; nil: -N is an unknown flag
	args   []string
}

type kind uint8

const (
	boolFlag  kind = iota // present or not; --name=false also allowed
	countFlag             // each time adds one
	valueFlag             // takes a value
)

type flag struct {
	long    string
	short   byte // 0: none
	kind    kind
	b       *bool
	n       *int
	set     func(string) error // valueFlag
	changed bool
}

func (s *Set) add(f *flag) {
	if f.long == "" || strings.HasPrefix(f.long, "-") || strings.Contains(f.long, "=") {
		panic("getopt: bad long name " + strconv.Quote(f.long))
	}
	if f.short != 0 && (f.short == '-' || f.short == '=' || f.short >= 0x80 || f.short <= ' ') {
		panic("getopt: bad short name " + strconv.Quote(string(f.short)))
	}
	for _, g := range s.flags {
		if g.long == f.long || f.short != 0 && g.short == f.short {
			panic("getopt: flag defined twice: " + f.long)
		}
	}
	s.flags = append(s.flags, f)
}

// Bool defines a flag that sets *p to true (--name=false to false). short
// is its one-letter name, or 0 for none.
func (s *Set) Bool(p *bool, long string, short byte) {
	s.add(&flag{long: long, short: short, kind: boolFlag, b: p})
}

// Count defines a flag that adds one to *p each time it is given (-vv).
func (s *Set) Count(p *int, long string, short byte) {
	s.add(&flag{long: long, short: short, kind: countFlag, n: p})
}

// String defines a flag that sets *p to its value.
func (s *Set) String(p *string, long string, short byte) {
	s.add(&flag{long: long, short: short, kind: valueFlag, set: func(v string) error {
		*p = v
		return nil
	}})
}

// Int defines a flag that sets *p to its value, a decimal integer.
func (s *Set) Int(p *int, long string, short byte) {
	s.add(&flag{long: long, short: short, kind: valueFlag, set: func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("want an integer")
		}
		*p = n
		return nil
	}})
}

// Duration defines a flag that sets *p to its value, as time.ParseDuration
// reads it (500ms, 2s).
func (s *Set) Duration(p *time.Duration, long string, short byte) {
	s.add(&flag{long: long, short: short, kind: valueFlag, set: func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("want a duration such as 500ms or 2s")
		}
		*p = d
		return nil
	}})
}

// Digits routes arguments made of a dash and digits only (-5, -19), as
// compressors take their levels, to the Int flag named long: -19 is
// --long=19. An argument that is the value of the flag before it (-T -1)
// stays that flag's value.
func (s *Set) Digits(long string) {
	f := s.lookup(long)
	if f == nil || f.kind != valueFlag {
		panic("getopt: Digits of an undefined or valueless flag: " + long)
	}
	s.digits = f
}

func (s *Set) lookup(long string) *flag {
	for _, f := range s.flags {
		if f.long == long {
			return f
		}
	}
	return nil
}

func (s *Set) lookupShort(c byte) *flag {
	for _, f := range s.flags {
		if f.short == c && c != 0 {
			return f
		}
	}
	return nil
}

// Parse parses args, the command line without the program's name, once.
// It stops at the first error, which names the argument.
func (s *Set) Parse(args []string) error {
	s.args = nil
	for i := 0; i < len(args); i++ {
		a := args[i]
		// next takes the following argument as a value.
		next := func(name string) (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "--":
			s.args = append(s.args, args[i+1:]...)
			return nil
		case len(a) < 2 || a[0] != '-':
			s.args = append(s.args, a)
		case a[1] == '-':
			name, value, hasValue := strings.Cut(a[2:], "=")
			f := s.lookup(name)
			if f == nil {
				return fmt.Errorf("unknown flag --%s", name)
			}
			shown := "--" + name
			switch {
			case f.kind == valueFlag && !hasValue:
				v, err := next(shown)
				if err != nil {
					return err
				}
				value = v
			case f.kind == countFlag && hasValue:
				return fmt.Errorf("%s takes no value", shown)
			}
			if err := f.apply(shown, value, hasValue); err != nil {
				return err
			}
		case s.digits != nil && allDigits(a[1:]):
			if err := s.digits.apply(a, a[1:], true); err != nil {
				return err
			}
		default:
			// Short flags run together: each flag without a value is
			// set, and the first that takes one takes the rest of the
			// argument (after an optional =), or the next argument.
			for j := 1; j < len(a); j++ {
				f := s.lookupShort(a[j])
				if f == nil {
					if j == 1 && len(a) == 2 {
						return fmt.Errorf("unknown flag %s", a)
					}
					return fmt.Errorf("unknown flag -%s in %s", string(rune(a[j])), quoteArg(a))
				}
				shown := "-" + string(rune(a[j]))
				if f.kind != valueFlag {
					if err := f.apply(shown, "", false); err != nil {
						return err
					}
					continue
				}
				value := strings.TrimPrefix(a[j+1:], "=")
				if j+1 == len(a) {
					v, err := next(shown)
					if err != nil {
						return err
					}
					value = v
				}
				if err := f.apply(shown, value, true); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// apply sets f from value (hasValue: one was given, with = or apart).
func (f *flag) apply(shown, value string, hasValue bool) error {
	f.changed = true
	switch f.kind {
	case boolFlag:
		if !hasValue {
			*f.b = true
			return nil
		}
		v, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s=%s: want true or false", shown, quoteArg(value))
		}
		*f.b = v
	case countFlag:
		*f.n++
	default:
		if err := f.set(value); err != nil {
			return fmt.Errorf("%s %s: %w", shown, quoteArg(value), err)
		}
	}
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// quoteArg quotes an argument for an error message where quoting shows
// more than it hides: empty, or with spaces or unprintable bytes.
func quoteArg(s string) string {
	if q := strconv.Quote(s); s == "" || q[1:len(q)-1] != s || strings.ContainsAny(s, " \t") {
		return q
	}
	return s
}

// Args returns the arguments that were not flags, in order.
func (s *Set) Args() []string { return s.args }

// Changed reports whether the flag named long was given on the command
// line.
func (s *Set) Changed(long string) bool {
	f := s.lookup(long)
	return f != nil && f.changed
}

// Names returns the long names of the flags, in the order they were
// defined.
func (s *Set) Names() []string {
	names := make([]string, len(s.flags))
	for i, f := range s.flags {
		names[i] = f.long
	}
	return names
}

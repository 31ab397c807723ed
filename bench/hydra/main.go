// Command hydra is the oracle and the trainer of codec's Hydra selection.
//
// For every record (line) of the JSONL files it reads, the oracle encodes
// the record in every format, None, M2M v1, TokenNative (cl100k_base) and
// Brotli, in both the binary form a container holds and the string form of
// a lines file, keeps the size of each, and computes the record's
// features (package internal/hydra). It reports, per file and per form,
// the total size of the oracle's choice (the smallest message), of
// today's auto-selection and of Hydra's trees, and the confusion matrix of
// Hydra against the oracle.
//
// Hydra is evaluated by cross-validation split by conversation: a record
// belongs to the conversation named by its first user message (else its
// first message, else its "id", so that a stream's chunks go together,
// else the line itself), and records go to fold hash(conversation) mod
// -folds. A request that re-sends a history thus lands in the fold of
// every other turn of its conversation.
//
// With -train it fits the trees on all records and writes them as Go
// source:
//
//	go run ./bench/hydra -train -out internal/hydra/model.go \
//	    internal/sample/sample.jsonl /work/shared/corpus/dev.jsonl /work/shared/corpus/dev100.jsonl
//
// Training is deterministic: the same files give the same model.go.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/m2m-go/m2m/codec"
	"github.com/m2m-go/m2m/internal/hydra"
	"github.com/m2m-go/m2m/internal/jsonscan"
)

// A form is the layout messages are written in.
type form int

const (
	binary form = iota // container records
	str                // wire strings, one per line
	numForms
)

var formNames = [numForms]string{"container", "lines"}

// infeasible is the size of a format that cannot carry a record.
const infeasible = math.MaxInt32

// record is what the oracle learns of one line.
type record struct {
	file  int
	group uint64
	feat  hydra.Features
	size  [numForms][hydra.NumClasses]int
	auto  [numForms]int
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("hydra: ")
	train := flag.Bool("train", false, "fit the trees on every record and write them to -out")
	out := flag.String("out", "internal/hydra/model.go", "file the trained model is written to")
	folds := flag.Int("folds", 5, "cross-validation folds")
	depth := flag.Int("depth", 6, "deepest tree")
	minLeaf := flag.Int("minleaf", 20, "fewest records in a leaf")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: hydra [-train [-out model.go]] [-folds k] [-depth d] [-minleaf n] file.jsonl...\n")
		flag.PrintDefaults()
		os.Exit(2)
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
	}
	if err := run(os.Stdout, flag.Args(), *train, *out, *folds, params{*depth, *minLeaf}); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, files []string, train bool, out string, folds int, p params) error {
	var recs []record
	for i, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if recs, err = measure(recs, data, i); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	// Cross-validated predictions, by conversation.
	var pred [numForms][]hydra.Class
	for f := range numForms {
		pred[f] = make([]hydra.Class, len(recs))
		for k := range folds {
			var in []int
			for i := range recs {
				if recs[i].group%uint64(folds) != uint64(k) {
					in = append(in, i)
				}
			}
			tree := fit(recs, in, form(f), p)
			for i := range recs {
				if recs[i].group%uint64(folds) == uint64(k) {
					pred[f][i] = hydra.Predict(tree, &recs[i].feat)
				}
			}
		}
	}
	for i, name := range files {
		for f := range numForms {
			report(w, recs, pred[f], i, filepath.Base(name), form(f))
		}
	}
	if !train {
		return nil
	}
	var all []int
	for i := range recs {
		all = append(all, i)
	}
	var trees [numForms][]hydra.Node
	for f := range numForms {
		trees[f] = fit(recs, all, form(f), p)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return os.WriteFile(out, source(trees, names, len(recs), p), 0o644)
}

// measure appends the records of a JSONL file to recs.
func measure(recs []record, data []byte, file int) ([]record, error) {
	enc, err := codec.NewEncoder()
	if err != nil {
		return nil, err
	}
	var (
		x      hydra.Extractor
		fields jsonscan.Fields
		buf    []byte
	)
	for line := range bytes.Lines(data) {
		text := bytes.TrimSuffix(line, []byte{'\n'})
		if len(text) == 0 {
			continue
		}
		r := record{file: file, group: conversation(text)}
		var sf *jsonscan.Fields
		if len(text) <= hydra.ScanLen && jsonscan.Scan(text, jsonscan.Limits{}, &fields) == nil {
			sf = &fields
		}
		x.Extract(&r.feat, text, sf)

		bin := &r.size[binary]
		bin[hydra.None] = len(text)
		if buf, err = enc.AppendFrame(buf[:0], text); err == nil {
			bin[hydra.M2M] = len(buf)
		} else {
			bin[hydra.M2M] = infeasible
		}
		if buf, err = enc.AppendTokenNativeBinary(buf[:0], text); err == nil {
			bin[hydra.TokenNative] = len(buf)
		} else {
			bin[hydra.TokenNative] = infeasible
		}
		if buf, err = enc.AppendBrotli(buf[:0], text); err != nil {
			return nil, err
		}
		bin[hydra.Brotli] = len(buf)
		// A container's auto: a frame for JSON, else the line.
		r.auto[binary] = min(bin[hydra.M2M], bin[hydra.None])

		// String forms: the prefix and the base64 of the binary form
		// after it (M2M v1: the frame after its prefix; TokenNative: the
		// ids after the tokenizer byte).
		s := &r.size[str]
		s[hydra.None] = len(text)
		if a, err := codec.Detect(text); err != nil || a != codec.None {
			s[hydra.None] = infeasible
		}
		s[hydra.M2M] = stringLen(len("#M2M|1|"), bin[hydra.M2M]-len("#M2M|1|"))
		s[hydra.TokenNative] = stringLen(len("#TK|C|"), bin[hydra.TokenNative]-1)
		s[hydra.Brotli] = stringLen(len("#M2M[v3.0]|DATA:"), bin[hydra.Brotli])
		if buf, _, err = enc.AppendAuto(buf[:0], text); err != nil {
			return nil, err
		}
		r.auto[str] = len(buf)
		recs = append(recs, r)
	}
	return recs, nil
}

// stringLen is the length of a prefix and the base64 of n bytes, or
// infeasible if the binary form is.
func stringLen(prefix, n int) int {
	if n >= infeasible/2 {
		return infeasible
	}
	return prefix + base64.StdEncoding.EncodedLen(n)
}

// conversation names the conversation of a record (see the package
// documentation).
func conversation(text []byte) uint64 {
	var v struct {
		ID       string `json:"id"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	key := text
	if json.Unmarshal(text, &v) == nil {
		switch {
		case len(v.Messages) > 0:
			key = v.Messages[0].Content
			for _, m := range v.Messages {
				if m.Role == "user" {
					key = m.Content
					break
				}
			}
		case v.ID != "":
			key = []byte(v.ID)
		}
	}
	h := fnv.New64a()
	h.Write(key)
	return h.Sum64()
}

// best is the oracle's choice: the smallest message, ties going to the
// faster decoder (None, then TokenNative, Brotli, M2M v1).
func best(size *[hydra.NumClasses]int) hydra.Class {
	c := hydra.None
	for _, k := range []hydra.Class{hydra.TokenNative, hydra.Brotli, hydra.M2M} {
		if size[k] < size[c] {
			c = k
		}
	}
	return c
}

// report writes the totals and the confusion matrix of one file and form.
func report(w io.Writer, recs []record, pred []hydra.Class, file int, name string, f form) {
	var oracle, auto, hyd, input, n int
	var conf [hydra.NumClasses][hydra.NumClasses]int
	for i := range recs {
		r := &recs[i]
		if r.file != file {
			continue
		}
		n++
		input += r.size[binary][hydra.None]
		o := best(&r.size[f])
		oracle += r.size[f][o]
		auto += r.auto[f]
		hyd += r.size[f][feasible(r, f, pred[i])]
		conf[o][pred[i]]++
	}
	pct := func(a int) string { return fmt.Sprintf("%+.2f%%", 100*(float64(a)/float64(oracle)-1)) }
	fmt.Fprintf(w, "%s, %s: %d records, %d bytes\n", name, formNames[f], n, input)
	fmt.Fprintf(w, "  oracle %d  auto %d (%s)  hydra %d (%s)\n", oracle, auto, pct(auto), hyd, pct(hyd))
	fmt.Fprintf(w, "  oracle \\ hydra %12s %12s %12s %12s\n", hydra.None, hydra.M2M, hydra.TokenNative, hydra.Brotli)
	for o := range hydra.NumClasses {
		fmt.Fprintf(w, "  %-14s", o)
		for p := range hydra.NumClasses {
			fmt.Fprintf(w, " %12d", conf[o][p])
		}
		fmt.Fprintln(w)
	}
}

// feasible is the class codec writes when Hydra predicts c: c, unless it
// cannot carry the record, then Brotli, which carries any text.
func feasible(r *record, f form, c hydra.Class) hydra.Class {
	if r.size[f][c] >= infeasible {
		return hydra.Brotli
	}
	return c
}

// params bound a tree.
type params struct{ depth, minLeaf int }

// fit grows a tree on the records in idx that minimises the total size of
// the chosen messages in form f: each leaf chooses the class with the
// smallest total over its records, and each split is the one that lowers
// that total most.
func fit(recs []record, idx []int, f form, p params) []hydra.Node {
	tree := []hydra.Node{{}}
	grow(recs, idx, f, p, &tree, 0, 0)
	return tree
}

// cost returns the class with the smallest total over idx, and the total.
func leafOf(totals *[hydra.NumClasses]float64) (hydra.Class, float64) {
	c := hydra.None
	for _, k := range []hydra.Class{hydra.TokenNative, hydra.Brotli, hydra.M2M} {
		if totals[k] < totals[c] {
			c = k
		}
	}
	return c, totals[c]
}

func grow(recs []record, idx []int, f form, p params, tree *[]hydra.Node, at, depth int) {
	var totals [hydra.NumClasses]float64
	for _, i := range idx {
		for c := range hydra.NumClasses {
			totals[c] += float64(recs[i].size[f][c])
		}
	}
	class, cost := leafOf(&totals)
	(*tree)[at] = hydra.Node{Class: class}
	if depth >= p.depth || len(idx) < 2*p.minLeaf {
		return
	}
	bestGain, bestFeat, bestThr := 1.0, hydra.Feature(0), float32(0)
	sorted := slices.Clone(idx)
	for feat := range hydra.NumFeatures {
		slices.SortStableFunc(sorted, func(a, b int) int {
			return cmpFloat(recs[a].feat[feat], recs[b].feat[feat])
		})
		var left [hydra.NumClasses]float64
		for k := 0; k < len(sorted)-1; k++ {
			r := &recs[sorted[k]]
			for c := range hydra.NumClasses {
				left[c] += float64(r.size[f][c])
			}
			lo, hi := r.feat[feat], recs[sorted[k+1]].feat[feat]
			if lo == hi || k+1 < p.minLeaf || len(sorted)-k-1 < p.minLeaf {
				continue
			}
			var right [hydra.NumClasses]float64
			for c := range hydra.NumClasses {
				right[c] = totals[c] - left[c]
			}
			_, lc := leafOf(&left)
			_, rc := leafOf(&right)
			if gain := cost - lc - rc; gain > bestGain {
				thr := lo + (hi-lo)/2
				if thr <= lo {
					thr = hi
				}
				bestGain, bestFeat, bestThr = gain, feat, thr
			}
		}
	}
	if bestGain <= 1 {
		return
	}
	var l, r []int
	for _, i := range idx {
		if recs[i].feat[bestFeat] < bestThr {
			l = append(l, i)
		} else {
			r = append(r, i)
		}
	}
	left := len(*tree)
	*tree = append(*tree, hydra.Node{}, hydra.Node{})
	(*tree)[at] = hydra.Node{Feature: bestFeat, Left: uint16(left), Threshold: bestThr}
	grow(recs, l, f, p, tree, left, depth+1)
	grow(recs, r, f, p, tree, left+1, depth+1)
	// A split whose two sides choose the same class, all the way down,
	// is no decision: make it a leaf.
	if a, b := (*tree)[left], (*tree)[left+1]; a.Left == 0 && b.Left == 0 && a.Class == b.Class && left+2 == len(*tree) {
		*tree = (*tree)[:left]
		(*tree)[at] = hydra.Node{Class: a.Class}
	}
}

func cmpFloat(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// source writes the trees as the Go source of package hydra.
func source(trees [numForms][]hydra.Node, files []string, n int, p params) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./bench/hydra -train; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package hydra\n\n")
	vars := [numForms]string{"BinaryTree", "StringTree"}
	what := [numForms]string{"binary forms (container records)", "string forms (wire strings)"}
	for f := range numForms {
		fmt.Fprintf(&b, "// %s chooses among the %s: trained on %d records of %s,\n", vars[f], what[f], n, strings.Join(files, ", "))
		fmt.Fprintf(&b, "// depth at most %d, at least %d records a leaf.\n", p.depth, p.minLeaf)
		fmt.Fprintf(&b, "var %s = [...]Node{\n", vars[f])
		for i, nd := range trees[f] {
			if nd.Left == 0 {
				fmt.Fprintf(&b, "\t%d: {Class: %s},\n", i, className(nd.Class))
			} else {
				fmt.Fprintf(&b, "\t%d: {Feature: %s, Left: %d, Threshold: %s},\n", i, featName(nd.Feature), nd.Left, fmtFloat(nd.Threshold))
			}
		}
		fmt.Fprintf(&b, "}\n\n")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

func className(c hydra.Class) string {
	return [...]string{"None", "M2M", "TokenNative", "Brotli"}[c]
}

func featName(f hydra.Feature) string {
	s := f.String()
	switch s {
	case "json", "cjk", "api":
		return strings.ToUpper(s)
	case "nonascii":
		return "NonASCII"
	case "base64":
		return "Base64"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fmtFloat writes a float32 so that it parses back to the same value.
func fmtFloat(v float32) string {
	s := fmt.Sprint(v)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

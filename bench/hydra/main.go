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
//	    internal/sample/sample.jsonl $CORPORA/dev.jsonl $CORPORA/dev100.jsonl
//
// Training is deterministic: the same files give the same model.go.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"hash/fnv"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
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
	csv := flag.String("csv", "", "also write every record's sizes, features and oracle choice to this file, as CSV")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: hydra [-train [-out model.go]] [-folds k] [-csv file] file.jsonl...\n")
		flag.PrintDefaults()
		os.Exit(2)
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
	}
	if err := run(os.Stdout, flag.Args(), *train, *out, *csv, *folds); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, files []string, train bool, out, csv string, folds int) error {
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
	if csv != "" {
		if err := os.WriteFile(csv, table(recs), 0o644); err != nil {
			return err
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
			m := fit(recs, in, form(f))
			for i := range recs {
				if r := &recs[i]; r.group%uint64(folds) == uint64(k) {
					pred[f][i] = m.Choose(&r.feat, r.size[f][hydra.None] < infeasible)
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
	var models [numForms]*hydra.Model
	for f := range numForms {
		models[f] = fit(recs, all, form(f))
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	src, err := format.Source(source(models, names, len(recs)))
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
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

// table writes the records as CSV, with a header line.
func table(recs []record) []byte {
	var b bytes.Buffer
	b.WriteString("file,group")
	for f := range numForms {
		for c := range hydra.NumClasses {
			fmt.Fprintf(&b, ",%s_%s", formNames[f], c)
		}
		fmt.Fprintf(&b, ",%s_oracle", formNames[f])
	}
	for k := range hydra.NumFeatures {
		fmt.Fprintf(&b, ",%s", k)
	}
	b.WriteByte('\n')
	for i := range recs {
		r := &recs[i]
		fmt.Fprintf(&b, "%d,%d", r.file, r.group)
		for f := range numForms {
			for c := range hydra.NumClasses {
				fmt.Fprintf(&b, ",%d", r.size[f][c])
			}
			fmt.Fprintf(&b, ",%s", best(&r.size[f]))
		}
		for _, v := range r.feat {
			fmt.Fprintf(&b, ",%g", v)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
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

// ridge is the penalty on the square of every weight but the intercept,
// which keeps the normal equations well posed (the byte-class shares are
// nearly collinear).
const ridge = 1e-3

// fit fits the models of form f to the records in idx: for each format,
// least squares on ln(size/len) of its messages.
func fit(recs []record, idx []int, f form) *hydra.Model {
	var m hydra.Model
	for _, c := range []hydra.Class{hydra.TokenNative, hydra.Brotli} {
		const n = int(hydra.NumFeatures)
		var a [n][n]float64
		var b [n]float64
		for _, i := range idx {
			r := &recs[i]
			size, l := r.size[f][c], r.size[binary][hydra.None]
			if size >= infeasible {
				continue
			}
			y := math.Log(float64(size) / float64(l))
			for j, x := range r.feat {
				b[j] += float64(x) * y
				for k, z := range r.feat {
					a[j][k] += float64(x) * float64(z)
				}
			}
		}
		for j := 1; j < n; j++ {
			a[j][j] += ridge
		}
		w := solve(a, b)
		lin := &m.Brotli
		if c == hydra.TokenNative {
			lin = &m.TokenNative
		}
		for j := range w {
			lin[j] = float32(w[j])
		}
	}
	return &m
}

// solve solves a x = b by Gaussian elimination with partial pivoting.
func solve(a [hydra.NumFeatures][hydra.NumFeatures]float64, b [hydra.NumFeatures]float64) [hydra.NumFeatures]float64 {
	const n = int(hydra.NumFeatures)
	for i := range n {
		p := i
		for k := i + 1; k < n; k++ {
			if math.Abs(a[k][i]) > math.Abs(a[p][i]) {
				p = k
			}
		}
		a[i], a[p] = a[p], a[i]
		b[i], b[p] = b[p], b[i]
		for k := i + 1; k < n; k++ {
			q := a[k][i] / a[i][i]
			for j := i; j < n; j++ {
				a[k][j] -= q * a[i][j]
			}
			b[k] -= q * b[i]
		}
	}
	var x [n]float64
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	return x
}

// source writes the models as the Go source of package hydra.
func source(models [numForms]*hydra.Model, files []string, n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./bench/hydra -train; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package hydra\n\n")
	vars := [numForms]string{"Binary", "String"}
	what := [numForms]string{"binary forms (container records)", "string forms (wire strings)"}
	for f := range numForms {
		fmt.Fprintf(&b, "// %s predicts the sizes of %s, fitted to\n// %d records of %s.\n", vars[f], what[f], n, strings.Join(files, ", "))
		fmt.Fprintf(&b, "var %s = Model{\n", vars[f])
		for _, c := range []struct {
			name string
			w    *hydra.Linear
		}{{"TokenNative", &models[f].TokenNative}, {"Brotli", &models[f].Brotli}} {
			fmt.Fprintf(&b, "\t%s: Linear{\n", c.name)
			for k, w := range c.w {
				fmt.Fprintf(&b, "\t\t%s: %s,\n", featName(hydra.Feature(k)), fmtFloat(w))
			}
			fmt.Fprintf(&b, "\t},\n")
		}
		fmt.Fprintf(&b, "}\n\n")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// featName is the Go name of a feature.
func featName(f hydra.Feature) string {
	switch s := f.String(); s {
	case "json", "cjk", "api":
		return strings.ToUpper(s)
	case "nonascii":
		return "NonASCII"
	case "loglen":
		return "LogLen"
	case "invlen":
		return "InvLen"
	default:
		return strings.ToUpper(s[:1]) + s[1:]
	}
}

// fmtFloat writes a float32 so that it parses back to the same value.
func fmtFloat(v float32) string {
	s := fmt.Sprint(v)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

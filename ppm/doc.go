// Package ppm is a context-model coder for text: prediction by partial
// matching (PPM) of bytes, with an arithmetic (range) coder, in pure Go.
// It knows nothing of JSON or archives; package archive uses it for the
// text streams of its smallest level.
//
// The model predicts each byte from the longest context (the bytes before
// it, up to Options.Order of them) that has been seen before, falling back
// to shorter ones (escaping) when the byte is new there, as PPMd does:
//
//   - contexts live in a tree in one arena of Options.Memory MiB, made as
//     they first occur, and a context seen once remembers where in the text
//     it was, so the second time it starts out knowing what followed;
//   - whether a context has the byte at all (escape or not) is a binary
//     decision whose probability is learned from the context's statistics
//     (secondary escape estimation): how many symbols it has and their
//     counts, its order, how many more its shorter context has, whether a
//     longer one just escaped, the class of the last byte and of the
//     context's symbol if it has one; and by two more tables, of the last
//     byte and of the last two, and from the counts alone: the four mixed
//     by weights learned as it goes (a logistic mixer, as context-mixing
//     coders have), 2% smaller on LLM text than the first table alone;
//   - a symbol new to a context starts with a count that reflects how
//     likely it was where it was found, or, in a context made from the
//     text, in the context one shorter (information inheritance);
//   - symbols seen in a longer context are excluded in the shorter ones;
//   - a match model predicts the byte that followed the last occurrence of
//     the last eight bytes, once 32 of them match, and is consulted only
//     while matches of its length, in contexts of the kind the byte is in,
//     have been right more than 15 times in 16: near-duplicate text costs
//     a fraction of a bit a byte;
//   - probabilities are of 16 bits, so that a byte all but certain (most
//     of JSON's punctuation and keys) costs some 0.002 bits.
//
// Encoder and decoder run the same model, so they are equally fast. When
// the arena is full the model stops growing, at the same byte on both
// sides, and goes on learning the counts of what it has. The model takes
// about 48 bytes of arena a byte of new text at order 16 (4 MiB of LLM
// answers and prompts fill 188 MiB); text that repeats takes little, and
// a model half that size codes only ~1% larger (bench/README.md).
//
// With Options.Words, the encoder first replaces a text's frequent words
// (runs of ASCII letters, and JSON escapes) by codes of one or two bytes
// the text does not use, or uses rarely (escaped where it does), a
// capitalized word by a flag and its lower-case form's code, and codes
// the list of words (with a small model of its own) before the text: the
// model sees fewer symbols, and 16 of them reach further back. dev100's
// --max archive is 4.9% smaller so (strings 4.8%, skeletons 6.1%,
// templates 6.7% with the archive's change of their layout), compresses
// in 18% less time and decompresses in 21-24% less; a text with no byte
// values free or rare, or shorter than 128 KiB, is coded as it is
// (package words, words.go, bench/README.md).
//
// A match model may also be given a dictionary (Options.Dict): earlier
// text, known to both sides, in which it finds repeats as in the data.
// Package archive gives a strings frame the first frame of its segment:
// 7% smaller frames for the time it takes to hash the dictionary.
//
// # Why PPM
//
// Measured on the strings stream of dev.jsonl's archive (5.5 MB, one core,
// bench/coder.sh): this coder 1.48 bits a byte at ~2 MB/s both ways
// (1.45 at ~2.8 MB/s with Options.Words), 7-Zip's PPMd var. H at order
// 16 with 256 MiB 1.48 at 4.5 MB/s (1.55 given the file, which has 7-Zip
// cut its model to 128 MiB), at order 8 1.63, xz -9 1.76, zstd -19 1.80,
// brotli -q 11 1.75. Words off, this coder is within 0.3% of PPMd on the
// archive's streams of text and of JSON's structure, the model being
// PPMd's where it matters (its counts, inheritance and binary contexts);
// its words and match model make it 2-4% smaller (bench/README.md, "ppm
// against PPMd with the memory it was given"). PPM is the best ratio a
// few MB/s buys on this text; context mixing (several models' predictions
// mixed bit by bit) is known to reach 10-20% less at a fraction of the speed,
// which the archive's decompression speed target (10 MB/s a core) rules
// out: only the escape decision, half of the coded bits, is mixed here.
// A model over BPE token ids was not tried.
//
// # Format
//
//	data   = version (1) | order (1) | uvarint memory_mib | uvarint raw_len | crc32 (4)
//	         | uvarint dict_len | [crc32 of the dictionary (4), if dict_len > 0]
//	         | uvarint words | [uvarint codes | codes | uvarint one, if words > 0] | range-coded bytes
//	stream = (uvarint len | kind | data or the bytes themselves)* | 0
//
// With words > 0 the range-coded bytes are first the words (an order-4
// model of their own), each as how many bytes it shares with the word
// before (a byte), the rest and a line feed; then the text with codes:
// codes[0] is the escape (the next symbol is one of the codes, as a byte
// of the text), codes[1] the capital flag, codes[2:2+one] stand for words
// 0 to one-1, and each later code c is the first byte of two, whose
// second b stands for word one + 256*(c's place among them) + b. The
// dictionary is coded with the same table for the match model. Version
// 6; a decoder refuses others.
//
// A decoder refuses data whose memory exceeds Options.MaxMemory (512 MiB
// by default), whose length exceeds what the caller allows, made with
// another dictionary, or whose output does not match its CRC-32; it reads
// nothing past its input and never panics. A stream's chunks ([Writer],
// [Reader]) are coded alone, DefaultChunk bytes each, at most MaxChunk.
package ppm

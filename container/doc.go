// Package container reads and writes m2m corpus files: a sequence of
// records, each one line of the input (a JSON record, or anything else),
// held as an M2M message in binary wire form or as raw bytes, grouped in
// checksummed blocks, with an index and a trailer. It knows nothing of
// codecs or workers: it moves bytes, checks them, and finds them again.
//
// # Format (version 1)
//
// All integers are little-endian; uvarint is unsigned LEB128.
//
//	file    = header block* index trailer
//	header  = magic "\x89M2M\r\n\x1a\n" (8 bytes) | version 0x01 | flags 0x00 | reserved 0x0000
//	block   = type (1) | uvarint records | uvarint body_len | body | crc32 (4)
//	trailer = index_offset (8) | records (8) | lines (8) | bytes (8) | file_crc32 (4) | end magic "M2M\x1a" (4)
//
// The magic starts with a non-ASCII byte and holds CR LF, LF and ^Z, like
// PNG's, so transfers that mangle line endings or drop the high bit are
// caught at once. A block's crc32 is the CRC-32/IEEE of its type through
// its body. The trailer's file_crc32 covers every byte of the file before
// it; records, lines and bytes (the size of the original input) total the
// blocks', so a file cut short, or with
// blocks lost, dropped or reordered, is detected both by readers that see
// the file as a stream and by those that seek to the trailer.
//
// Block types:
//
//	0x01 records: body = record*, one per line (or piece of a line)
//	0x02 archive: a block of an archive, or its directory (package archive)
//	0xFF index:   body = uvarint blocks, then per block: uvarint offset
//	              delta (from the previous block, the first from 0),
//	              uvarint records, uvarint lines, uvarint bytes (of the
//	              original input the block holds)
//
// The index block comes last; index_offset is its offset in the file. With
// it, a reader that can seek finds record N by a binary search over the
// blocks and a walk inside one.
//
// A record is one line of the input, without its line feed:
//
//	record = kind (1) | uvarint len | data (len)
//	kind   = encoding (low 4 bits) | 0x40 "continues" | 0x80 "no newline"
//
// Encodings: 0 raw (the bytes themselves), 1 an M2M v1 frame in binary form
// with its #M2M|1| prefix, 2 a Brotli stream, 3 a TokenNative message in
// binary mode (tokenizer byte and varints), 4 raw bytes sealed under the
// key of a secured corpus (an HMAC tag after them, or a nonce and their
// ChaCha20-Poly1305 encryption; see codec.Encoder.AppendSealed). "no newline" marks a record not
// followed by a line feed in the input: the last line, when the input does
// not end in one, and every piece but the last of a line too long for one
// record, which also carry "continues". A carriage return before the line
// feed stays in the record's data, so CRLF input comes back as it went in.
//
// Limits: a reader refuses blocks whose body would exceed MaxBlock bytes
// and records longer than their block, so a corrupt length cannot make it
// allocate without bound.
package container

// Package container reads and writes m2m corpus files: a sequence of
// records, each one line of the input (a JSON record, or anything else),
// held as an M2M message in binary wire form or as raw bytes, grouped in
// checksummed blocks, with an index and a trailer. It knows nothing of
// codecs or workers: it moves bytes, checks them, and finds them again.
//
// # Format (version 2)
//
// All integers are little-endian; uvarint is unsigned LEB128.
//
//	file    = header block* index trailer
//	header  = magic "\x89M2M\r\n\x1a\n" (8 bytes) | version 0x02 | flags | reserved 0x0000
//	          | file_id (16, sealed files only)
//	flags   = 0x01 sealed; other bits are reserved, zero
//	block   = type (1) | uvarint records | uvarint body_len | body
//	          | mac (16, data blocks of sealed files only) | crc32 (4)
//	trailer = index_offset (8) | records (8) | lines (8) | bytes (8)
//	          | mac (16, sealed files only) | file_crc32 (4) | end magic "M2M\x1a" (4)
//
// The magic starts with a non-ASCII byte and holds CR LF, LF and ^Z, like
// PNG's, so transfers that mangle line endings or drop the high bit are
// caught at once. Readers refuse other versions, saying which they found.
//
// A block's crc32 is the CRC-32/IEEE of everything in it before the
// crc32. The trailer's file_crc32 is the CRC-32 of the header, then every
// block's crc32 in file order (4 bytes each, the index block's last),
// then the trailer's bytes before it: it changes when any block changes,
// or when blocks trade places. (A CRC over the blocks' bytes would not:
// each block ends with its own CRC, and the CRC of data followed by its
// CRC is a constant, so it would depend on the blocks' lengths alone.)
// Records, lines and bytes (the size of the original input) total the
// blocks', so a file cut short, or with blocks lost, dropped or
// reordered, is detected both by readers that see the file as a stream
// and by those that seek to the trailer.
//
// CRCs catch accidents, not intent: anyone can change a block and make
// every CRC right again. A sealed file also resists that, for those who
// hold its key. Its header carries a random file_id; every data block a
// mac, HMAC-SHA256 cut to 16 bytes over
//
//	"m2m container block\x00" | file_id | type (1) | first (8) | records (8) | body_len (8) | body
//
// where first is the number of the block's first record in the file, so
// each record is bound to its number and to the file: records reordered
// inside a block, blocks swapped, copied, dropped or taken from another
// file all fail. The trailer's mac, HMAC-SHA256 cut to 16 bytes over
//
//	"m2m container trailer\x00" | file_id | index body_len (8) | index body
//	| index_offset | records | lines | bytes (the trailer's first 32 bytes)
//
// covers the index, which lists every block's mac in order, and the
// totals, so a file cut short (even with an index and trailer rebuilt to
// match), or one whose last blocks are gone, fails too; an empty sealed
// file has a sealed trailer all the same. The MAC key is the caller's: at
// least MinKeyLen bytes, used for nothing else (package pipeline derives
// it from the corpus key with HKDF-SHA256). Readers given a key refuse a
// file that is not sealed, and report the first block whose mac fails
// with its records; readers given none read a sealed file as any other,
// its macs covered by the CRCs, not verified. A seal proves that a key's
// holder wrote the file whole, as it is; it cannot tell one such file
// from another, so whether a file is the one meant (not an older corpus,
// or another, sealed under the same key) is for the caller to know.
//
// Block types:
//
//	0x01 records: body = record*, one per line (or piece of a line)
//	0x02 archive: a block of an archive, or its directory (package archive)
//	0xFF index:   body = uvarint blocks, then per block: uvarint offset
//	              delta (from the previous block, the first from 0),
//	              uvarint records, uvarint lines, uvarint bytes (of the
//	              original input the block holds), the block's crc32 (4),
//	              and in a sealed file its mac (16)
//
// The index block comes last; index_offset is its offset in the file. With
// it, a reader that can seek finds record N by a binary search over the
// blocks and a walk inside one. OpenIndex checks all it can without
// reading the data blocks: the index against the trailer, the file_crc32
// (from the crc32s the index lists), and the trailer's mac; then each
// block read is checked against its index entry (and its mac). A block
// that is never read is never checked.
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

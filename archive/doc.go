// Package archive is the archive mode of m2m corpus files: records grouped
// into blocks compressed as a unit with zstd, and every JSON value of 64
// bytes or more (a message, a system prompt, a tool schema, a re-sent
// history) stored once in the archive and referred to after that, so that
// a session re-sending its history costs a few bytes a message. It knows
// nothing of files or workers: pipeline runs it, container frames it.
//
// Every record comes back byte for byte: values are byte spans of the
// original line (key order, whitespace and escapes are never touched), a
// line that is not JSON, holds the byte 0x01 or is a piece of a long line
// is kept as it is, and each record carries its length and CRC-32.
//
// # Format
//
// An archive is a container file (package container) whose blocks are of
// type container.TypeArchive, one per batch of input (8 MiB in
// m2m-batch), then a directory block. uvarint is unsigned LEB128.
//
//	block     = 'A' | uvarint gen_cap | uvarint first_entry | uvarint entries | uvarint records
//	            | uvarint index_len | uvarint index_zlen | uvarint store_len | uvarint store_zlen
//	            | uvarint skel_len | uvarint skel_zlen | index (zstd) | store (zstd) | skeletons (zstd)
//	index     = record*, one per record of the block
//	record    = flags | uvarint line_len | uvarint skel_len | crc32 (4, of the line)
//	            | [uvarint header_len | M2M v1 header]   (flags 0x02)
//	flags     = 0x01 template | 0x02 header | 0x40 continues | 0x80 no newline
//	store     = (uvarint len | template)*, the block's new entries, numbered on from first_entry
//	skeletons = the records' skeletons, end to end (skel_len each)
//	directory = 'D' | uvarint blocks | uvarint entries, per block
//
// A template is text in which 0x01 followed by a uvarint id stands for the
// text of entry id; a record's skeleton is a template if its flags say so,
// else its bytes. Entries are made children first, so a template refers
// only to entries before it. The header is the M2M v1 header (as in a
// frame, after its prefix) of a record that is JSON the codec accepts: -l
// and filters read the index section alone, never the store or skeletons.
//
// The store is bounded. Writer and readers keep the entries that can
// still be referred to in two generations: at the start of each block, if
// the text of the current one's entries totals gen_cap bytes or more, the
// older is forgotten. A value found in the older generation only is stored
// again, whole, so what is still in use lives on. A generation's entries
// total at most 2*gen_cap bytes of text (32 MiB by default). The writer
// holds that text (at most 128 MiB, plus about 40 bytes an entry of
// index); the sequential reader (Expander) holds only templates, in the
// blocks' store sections, and expands text once, into the records.
//
// An entry refers only to entries of the values nested in it, made before
// it in its own generation (a value the current generation lacks is stored
// again, or, with no room left, left in its parent's text), so its text
// lives as long as it does, and references nest no deeper than the JSON
// (maxDepth+1); readers refuse anything else. A record's skeleton may
// refer to either generation. A Reader reads any record by decoding its block's index, its
// skeletons as far as the record, and the store sections of the blocks
// that made the entries it refers to, as far as those entries (the
// directory says which block made each entry).
package archive

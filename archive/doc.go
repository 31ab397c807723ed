// Package archive is the archive mode of m2m corpus files: JSONL of LLM
// API traffic, each line a record (the lines of a value pretty-printed
// one), with every JSON value of 64 bytes or more (a message, a system
// prompt, a tool schema, a re-sent history, an answer), and every string
// of 32 or more that reads as text (a space, an escape but \/ or a byte
// past 0x7F in it: a short prompt or answer, where an id, a hash or a URL
// is made to be unique), stored once in the whole archive and referred to
// wherever it recurs, however far apart, and what is left of each record
// (its skeleton: keys, numbers, ids, short strings) kept apart from the
// stored text, each stream compressed on its own. It knows nothing of
// workers' scheduling beyond its own, of files or of flags: a [Writer]
// writes an archive to an io.Writer, a [Reader] reads one from an
// io.ReaderAt.
//
// Every record comes back byte for byte: stored values are byte spans of
// the original line (key order, whitespace and escapes are never
// touched); a line that is not JSON (but for its strings long enough to
// store, where they end as JSON strings do) or holds a byte the format uses
// as a marker (0x00-0x02, which valid JSON never holds raw) is kept as it
// is; and each record carries its length and CRC-32, checked whenever it
// is read. A line whose JSON object comes after up to 255 bytes of other
// text (a log's timestamp and level, an event stream's "data: ") is JSON
// with that text in its skeleton, and so is one followed by a comma (an
// array's element). The lines of a JSON value pretty-printed are one
// record (each element of a data set's one indented array; each object
// of jq's output): a line that ends inside an object or array, brackets
// counted outside strings, is joined by those after it up to the one
// that closes all it opened, or ends where only arrays are open, closing
// an object or array or once the record holds 256 bytes; lines that turn out not to be one value (a line
// ending inside a string or closing a bracket not open) or reach 1 MiB
// or 65,536 lines stay a record each. A line longer than [MaxLine] is cut
// into records where its values at the top level end (a data set's one
// array of records, each a record), else every MaxLine bytes.
//
// # Format
//
// An archive is a container file (package container) whose blocks are of
// type container.TypeArchive. Their bodies start with a kind: records
// blocks ('R'), one per 8 MiB of input or 4 Mi lines, whichever comes
// first (at LevelMax, per as many as make 2 MiB of skeletons or of index
// columns, for the context model to learn over), and
// store blocks of strings ('S') and templates ('T'), 4 and 2 MiB of
// entries each (at levels 3 and 4 a strings segment's first frame, the
// others' dictionary, twice a frame: 8 MiB; 16 MiB both at LevelMax,
// where the strings stream's last entries, if under a quarter of a frame,
// join the frame before them rather than make one that a fresh model
// would code; any size Options.FrameSize asks, up to 16 MiB: readers take
// what they find, up to 48 MiB), in the order the writer closes them,
// plain copies of large segments' dictionaries ('P', below), then the
// directory ('D').
// uvarint is unsigned LEB128.
//
//	records   = 'R' | uvarint records | frame(crcs) | frame(index) | frame(skeletons) | ends
//	strings   = 'S' | uvarint first_id | uvarint entries | frame(entries) | ends
//	templates = 'T' | uvarint first_id | uvarint entries | frame(entries) | ends
//	plain     = 'P' | uvarint dict_block | uvarint table_len | table | frame(text)
//	directory = 'D' | uvarint version | uvarint entries | (kind | uvarint block_delta | uvarint n)*
//	frame     = coder | uvarint dict | uvarint raw_len | uvarint data_len | data
//	ends      = uvarint steps | uvarint count * steps
//
// A frame's coder is 0 (stored: data is the raw bytes), 1 (zstd) or 2
// (package ppm's one-shot data: LevelMax's frames, each where it is
// smaller than zstd's level 3 makes it; random CRC-32s stored). dict is 0, or 1 +
// the number of an earlier block of the same stream whose frame is the
// dictionary of this one: for zstd (a raw dictionary), its raw bytes, or
// if it is a words frame (below) its coded text; for ppm, the first 8 MiB
// of its raw bytes, which a read of one record decodes, not all 16. The
// frames of a stream come in segments of 256, the first of which,
// compressed alone, is the others' dictionary. A frame so finds what recurs in other text
// (the same answer with another ending, a prompt template with another
// question) while reading it needs at most two frames decoded.
//
// A coder plus flags is a frame transformed before its coder: 0x10, its
// decimal numbers split out by package numcol; 0x20, its entries shaped
// (templates frames: see below). Its data is the text left, coded by
// that coder (with the frame's dict), then, with 0x10, the numbers'
// columns in a zstd frame of their own, but for their last noise_len
// bytes (numcol.NoiseLen: blobs' bytes and ids' bits, stored as they
// are, layout 13),
//
//	data = uvarint text_len | uvarint text_data_len | text_data [| uvarint cols_len | uvarint noise_len | cols_data | noise]
//
// and the raw bytes are the text unshaped, then numcol.Join of it and the
// columns. The writer splits a frame other than an index whose numbers
// are an eighth of its bytes or more, where that makes it smaller (always,
// where they are half of it): the float vectors of embedding responses,
// about 3.4 bytes a number in place of 4.7 at zstd -19 as digits, 3.9 in
// base64 (layout 4); and runs of other base64 of 256 characters or more,
// numcol's blobs (images, audio, files inline), which count as numbers
// and are their bytes in the columns, where as text at zstd's levels
// they cost 6.1-6.5 bits a character (layout 11). It splits the ids and
// times out of a skeletons or templates frame too (numcol.Tokens: runs of
// random letters and digits of 16 bytes or more, and UUIDs, that occur
// once in the frame, as their bits; numcol.Times: Unix times in seconds,
// as differences), with its numbers where those are an eighth of it,
// else alone where ids and times are a 64th of its bytes or more, at the
// zstd levels where that makes it smaller (layout 13): dev100's skeletons
// 10.6% smaller at level 3, 7.0% at LevelMax, where after a random id a
// context model lost its footing; a log exported as CSV, whose records
// are templates, 1.1%. Where a value was taken, the text holds a mark:
// one of three control bytes, the rarest in the frame (an occurrence of
// one in the frame is escaped), one for numbers, one for ids (followed
// by a byte naming the id's form) and one for times, in place of a
// column of kinds (layout 14: dev100's skeletons 2.6% smaller at
// LevelMax). A split frame that is not shaped is decoded only as far as
// a read needs: a prefix of its text, joined with its columns
// (decoded whole: they are small). It shapes a templates frame where that makes it a
// tenth smaller at zstd, or its numbers are split out at LevelMax (see
// appendSplit): each entry becomes its shape (its brackets, braces,
// commas, colons and whitespace, with byte 0x04 for each leaf: a string, a
// reference, or any other run of bytes) and its leaves, and
//
//	shaped  = uvarint shapes | (shape 0x00)* | uvarint entries | uvarint shape * entries | columns
//	columns = for each shape, for each of its slots: (leaf 0x00) * (entries of that shape)
//
// so that the leaves of a slot (keys' values, roles, references) lie side
// by side. A reader decodes such a frame whole.
//
// A zstd frame plus 0x40 is a words frame (the strings frames of the zstd
// levels): its frequent words were replaced by codes of one or two bytes
// (package words) before anything else, with the table of the first
// frame of its segment, stored in that frame, chosen there from words
// used 8 times or more, and codes that JSON text in UTF-8 does not hold
// raw (0x03-0x1F, 0xC0, 0xC1, 0xF5-0xFF; escaped where a text holds them):
//
//	data  = uvarint coded_len | uvarint table_len | table | the rest
//	table = uvarint words | uvarint codes | codes | uvarint one | uvarint list_len | zstd frame of the list
//
// where the rest is what a frame of the coder without 0x40, coded_len raw
// bytes, would hold, and table_len is 0 in a frame that takes its
// dictionary frame's table. The list is each word as how many of its
// first bytes are the word before's (a byte), the rest and a line feed;
// the codes are words.Table's. dev100's strings are 8.0% smaller so at
// level 3, dev's 6.6%; decoding expands them at ~550 MB/s a core, only as
// far as a read of one record needs (bench/README.md, "Words before zstd").
// At levels 3 and 4 their zstd frames, and the templates', are our own
// encoder's (internal/zenc: lazy parsing over rows of positions, zstd's
// level-9 design), not klauspost's: dev100's strings 7.6% smaller, the
// archive 18.37x for 17.29x, for 1.2-1.3x the time (bench/README.md, "Our
// own zstd encoder"); with the dictionary frame twice as long and rows
// for a window of three frames, 19.31x, level 4 19.58x ("A dictionary
// twice a frame"). The other frames with no dictionary (skeletons, index
// frames, numbers' columns, word lists) are zenc's too, by one step of
// lazy parsing at level 3, two at level 4: the archive 19.38x, level 4
// 19.61x, and a run on a small input no longer faults in klauspost's
// tables ("Every frame by zenc"). At level 4 the strings and templates
// frames are parsed by price (zenc's Params.Optimal, the design of zstd's
// btopt): dev100 20.20x and dev 13.62x, both smaller than zstd -19
// --long=27 makes them, at about twice level 3's time ("Level 4 parsed by
// price"). Any zstd decoder reads them.
//
// ends follow the frame they describe (its skeletons, or its entries):
// steps is raw_len/131072 + 1, and count k is how many of the frame's
// items (records' skeletons, entries) have their last byte in bytes
// [131072k, 131072(k+1)) of its raw bytes (an item of no bytes at the
// start, in the first). A read of one record so decodes each frame only
// as far as the 128 KiB that end what it needs: a zstd block's worth.
//
// A records block's index is columns, for its n records: n uvarint backs
// (below), n flags bytes (0x01 kept, 0x02 listed, 0x04 repeat, 0x08
// lines, 0x40 continues, 0x80 no newline), a uvarint length per record
// but repeats, each of lines joined (0x08) followed by a uvarint count of
// the line feeds within it (1 or more; -l counts lines by it, and a read
// checks it),
// one schema byte per listed record but repeats, one uvarint model number
// per listed record but repeats, then the block's models (uvarint count,
// then uvarint length and bytes each). Each record has a CRC-32 of its
// bytes: a back of 0 says it is the next in the crcs frame (4 bytes each,
// little-endian: random bytes that in the index frame spoiled zstd's
// statistics of the other columns); a back of k, that it is that of the
// record k before it in the block. A repeat is a record whose bytes are
// those of the record its back names (the writer compares them, within a
// batch of its input): it has no length, listing or skeleton of its own,
// but those of that record (or of the one that one repeats), and only its
// own continues and no newline flags. Logs of stream chunks, in which the
// same token of the same completion makes the same record (41% of
// bench/traffic's), are so 26% smaller at level 3 (bench/README.md). A
// listed record is JSON the M2M codec accepts, or holds such JSON after a
// prefix (from the first '{' of its first 256 bytes, if it does not start
// with one) or in a field of CSV (the first whose text starts with '{'),
// and is not a piece of a line that the next record continues: its
// schema and model are what that JSON's M2M v1 header would say (a comma
// after it aside), or where that names no model, the header of the first
// object among its members' values, or theirs, that does (a Batch file's
// "body"), which m2m-batch -l counts from the index alone. The skeletons follow one another: a kept record's bytes
// (its length of them), a template ended by a line feed (by 0x00 for
// lines joined, which hold line feeds), or for a repeat nothing.
//
// A template is JSON text (a skeleton, any text before it on its line)
// in which 0x01 then a uvarint n stands for the text of a string, and
// 0x02 then a uvarint n for the expansion of a template: for even n,
// the entry whose id is n/2-1 (far); for odd n (near), in stored
// template t, template t-(n+1)/2, else the entry whose id is
// next+(n-1)/2, where next is one past the highest id of its kind
// that the references before it named, or 0 if none did. The references
// before it are a records block's skeletons' before it, and in a
// templates frame those to strings of the entries before it in its group
// of 64 (entries 64k to 64k+63 of the frame). Ids only grow: the writer
// codes a new entry near (1 if it is the next: refs.go), and an old one
// far, the same bytes wherever it recurs. n is never 0, so references
// never hold the byte 0x00. A store frame's raw bytes are its entries,
// each ended by 0x00: strings as their JSON text (quotes included),
// templates as above. An object or array of 64 bytes or more is stored as
// a template, its own values long enough to store stored first, so a
// template refers only to templates made before it; a reader refuses
// anything else, and references nested deeper than the JSON may be.
// A string long enough to store that is the JSON text of an object or
// array, escaped (a gateway's log of request bodies, a container
// runtime's log lines), holding two values long enough to store, is
// stored as a template too, if one of the common encoders' dialects
// escapes that text back to the string's bytes (escape.go):
//
//	'"' | dialect | the text unescaped, as a template | '"'
//
// where dialect is a letter, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"[flags],
// flags the escapes beyond '"', '\' and control characters (\b \f \n \r
// \t named, others \u00xx) that it makes: 1, runes past U+007F as \uXXXX
// (surrogate pairs past U+FFFF); 2, '<', '>' and '&' as \u escapes; 4,
// U+2028 and U+2029 as \u escapes; 8, upper-case hex digits; 16, '/' as
// \/; or 'g', CSV's: a field of CSV holding JSON text, its quotes doubled
// and nothing else escaped (a line that is not JSON, the field at its
// start or after a ',', ';' or tab, and before one or the line's end:
// dev100 exported as CSV is 2x smaller so). Its text is expanded, then
// escaped. The values inside are stored once as any record's are:
// dev100's records as the bodies of a gateway's log (bench/reshape -kind
// bodies) are 28% smaller so (bench/README.md).
//
// The directory starts with the version of the layout, [Version] (14): a
// reader refuses another, saying which ([ErrVersion]). It lists the store
// blocks and plain copies in order: kind, block number (as a delta from
// the previous entry's; the first from 0) and n: a store block's number
// of entries, a plain copy's distance back to its dictionary's block.
// Entries are numbered from 0 in each kind, in the order of the blocks.
// Records blocks are found by the container's index, the only blocks
// with records.
//
// A plain copy holds a strings segment's dictionary, block dict_block, as
// the segment's other frames take it: a words frame's table as it stores
// it and its coded text, or (table_len 0) its raw bytes, for a ppm frame
// its first 8 MiB; the text in a frame of no dictionary, stored at the
// zstd levels, coded by zstd at LevelMax. The writer adds one, after the
// segment's last frame, to a segment of 128 frames or more (half of a
// full one), most of them compressed against the dictionary: a record
// read by number then reads its dictionary as it is, where decoding it
// (3 MB of coded text) was the longest step of a fresh process's read on
// a GiB archive (m2m-batch --record N, medians 17.17 -> 14.84 ms), and at
// LevelMax took 3-4 s (8 MiB of a context model's decoding; 23 ms from
// the copy: bench/README.md). It costs 1-2% of such a segment (0.8% of
// the GiB archive; 1.8% since the dictionary frame holds twice a frame,
// which made the archive 1.7% smaller all the same), at LevelMax 0.3-0.7% (2.3 MB against 2 to 4 GiB of
// strings coded 6x); archives under some 2 GB of input (at LevelMax, some
// 10 GB), whose segments are shorter, have none. A reader may ignore
// copies; Decode checks each against its frame.
//
// # Dedupe
//
// The writer identifies a value by 128 bits of hash/maphash under two
// seeds drawn at random for each archive, so values that collide cannot be
// prepared in advance; two different values of an archive with n distinct
// values collide with probability about n²/2¹²⁹, and a reader checks every
// record's CRC-32 besides. It keeps 24 bytes a value in a table of at most
// 48 MiB (two million values, what several GiB of input make); past that,
// a new value takes the place of the one used longest ago near its slot,
// which is stored again if it recurs. Output is the same for any number of
// workers, and the same from run to run as long as the table holds
// everything.
//
// # Reading
//
// A [Reader] reads any record by decoding its records block, and the store
// frames holding the entries it refers to (and their dictionaries), side
// by side on several cores, each only as far as its ends say the record
// needs (a words frame's coded text, in which the entries are found and
// only those asked for are expanded), with a cache of decoded
// frames (64 MiB) and one of entries whose frames are gone (16 MiB):
// values that recur across the whole archive. A zstd frame with a
// dictionary is decoded as the same frame without one, the dictionary's
// bytes put before its own in raw blocks (what a raw-content dictionary
// means), which klauspost's decoder runs 2.3x faster; part of a frame, as
// a frame of its first blocks. [Reader.Decode]
// decodes records blocks on several goroutines and writes them in order;
// a ppm frame it decodes (for seconds) hands on what it has decoded a MiB
// at a time, so that the records whose entries are decoded are expanded,
// and the frames that take its start as their dictionary decoded, on the
// other cores meanwhile.
// Readers refuse frames over 48 MiB, records over [MaxLine] or longer than
// their index says, and references out of range, so a corrupt or hostile
// file cannot make them allocate without bound.
//
// An archive cut short, or damaged past some point, loses its index and
// often its directory with its end. [Recover] reads what is left: the
// blocks whole and sound before the cut (container.RecoverIndex), and the
// store frames listed from their own first bytes where the directory is
// gone. Decode writes every record in order, byte for byte and checked,
// up to the first that refers to an entry past the cut, and fails saying
// how many it wrote (as it writes every record before the first bad one
// of any archive). A store frame is written once full, after the records
// blocks that fill it, so what is lost is about the input since the
// oldest frame still filling at the cut: a templates frame fills in some
// 40 MB of dev100-like input, so dev100's archive (6.5 MB at level 3)
// cut after 50%, 75% and 95% of its bytes gives back the first 31%, 55%
// and 79% of the input (m2m-batch -dc).
package archive

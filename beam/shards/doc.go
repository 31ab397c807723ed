// Package shards builds the Apache Beam pipelines of m2m-beam: Compress
// turns many JSONL files (plain, gzip or zstd; local or in any filesystem
// Beam has registered) into m2m shards and their manifest (package
// manifest of the core module), and Test and Decompress check the shards
// of a manifest or restore the files they came from, byte for byte.
//
// The pipelines run unchanged on every Beam runner: Prism, in process,
// with no setup; Dataflow, Flink and Spark in production. Each piece of
// work is one shard: a file, or a piece of a large plain file cut at line
// boundaries, so that one huge file spreads over the workers as well.
// Shards have deterministic names, and appear under them only when
// complete, so a bundle that a runner retries, or a run done again,
// replaces its shards instead of adding to them; the manifest is written
// last, once every shard is.
package shards

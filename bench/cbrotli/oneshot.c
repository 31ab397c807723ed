// oneshot: C libbrotli's one-shot encoder and decoder, one record at a
// time, the baseline of codec's BenchmarkBrotli (which it prints lines
// for, in the Go benchmark format, so that benchstat can set the two side
// by side). It is not part of the module: build it with gcc and
// libbrotli-dev, as ../brotli.sh does.
//
//	oneshot FILE QUALITY LGWIN SECONDS [DUMP]
//
// reads the JSONL records of FILE, then for each size class of
// BenchmarkBrotli (all records; up to 256 B; 1 KiB; 4 KiB; 32 KiB)
// compresses every record with BrotliEncoderCompress, one pass after
// another for at least SECONDS, and decodes the streams likewise with
// BrotliDecoderDecompress. With DUMP, it also writes every record's stream
// to the file DUMP, each after its length as 4 little-endian bytes, for
// comparing the bytes with the Go encoders.
#include <brotli/decode.h>
#include <brotli/encode.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_of(clockid_t id) {
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void) { return seconds_of(CLOCK_MONOTONIC); }

// cpu is the CPU time of the process: what the Go side's cpu-us/rec and
// cpu-MB/s measure.
static double cpu(void) { return seconds_of(CLOCK_PROCESS_CPUTIME_ID); }

static const struct {
	const char *name;
	size_t min, max;
} classes[] = {
	{"all", 0, SIZE_MAX},     {"256B", 0, 256},          {"1KiB", 257, 1 << 10},
	{"4KiB", (1 << 10) + 1, 4 << 10}, {"32KiB", (4 << 10) + 1, 32 << 10},
};

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: oneshot FILE QUALITY LGWIN SECONDS [DUMP]\n");
		return 2;
	}
	int quality = atoi(argv[2]), lgwin = atoi(argv[3]);
	double seconds = atof(argv[4]);
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = malloc(size + 1);
	if (fread(data, 1, size, f) != (size_t)size) {
		perror("read");
		return 1;
	}
	fclose(f);

	// The records: lines without their newline, as the Go side reads them.
	size_t n = 0, cap = 1024;
	char **rec = malloc(cap * sizeof *rec);
	size_t *len = malloc(cap * sizeof *len);
	for (char *p = data, *end = data + size; p < end;) {
		char *nl = memchr(p, '\n', end - p);
		if (!nl) nl = end;
		if (n == cap) {
			cap *= 2;
			rec = realloc(rec, cap * sizeof *rec);
			len = realloc(len, cap * sizeof *len);
		}
		rec[n] = p, len[n] = nl - p, n++;
		p = nl + 1;
	}

	uint8_t **stream = malloc(n * sizeof *stream);
	size_t *slen = malloc(n * sizeof *slen);
	size_t bound = 0;
	for (size_t i = 0; i < n; i++) {
		size_t b = BrotliEncoderMaxCompressedSize(len[i]);
		stream[i] = malloc(b);
		if (len[i] > bound) bound = len[i];
	}
	uint8_t *out = malloc(bound + 1);

	if (argc > 5) {
		FILE *d = fopen(argv[5], "wb");
		for (size_t i = 0; i < n; i++) {
			size_t m = BrotliEncoderMaxCompressedSize(len[i]);
			BrotliEncoderCompress(quality, lgwin, BROTLI_MODE_GENERIC, len[i], (const uint8_t *)rec[i], &m, stream[i]);
			uint8_t l[4] = {m, m >> 8, m >> 16, m >> 24};
			fwrite(l, 1, 4, d);
			fwrite(stream[i], 1, m, d);
		}
		fclose(d);
	}

	for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
		size_t in = 0, recs = 0, wire = 0;
		for (size_t i = 0; i < n; i++) {
			if (len[i] >= classes[c].min && len[i] <= classes[c].max) in += len[i], recs++;
		}
		if (recs == 0) continue;
		long passes = 0;
		double start = now(), cpu0 = cpu(), t, used;
		do {
			wire = 0;
			for (size_t i = 0; i < n; i++) {
				if (len[i] < classes[c].min || len[i] > classes[c].max) continue;
				size_t m = BrotliEncoderMaxCompressedSize(len[i]);
				if (!BrotliEncoderCompress(quality, lgwin, BROTLI_MODE_GENERIC, len[i], (const uint8_t *)rec[i], &m,
				                           stream[i])) {
					fprintf(stderr, "record %zu: encoder failed\n", i);
					return 1;
				}
				slen[i] = m, wire += m;
			}
			passes++;
		} while ((t = now() - start) < seconds);
		used = cpu() - cpu0;
		printf("BenchmarkBrotli/op=encode/impl=c-oneshot/q=%d/size=%s\t%ld\t%.0f ns/op\t%.2f MB/s\t%.4f ratio\t%.3f us/rec\t%.3f "
		       "cpu-us/rec\t%.2f cpu-MB/s\n",
		       quality, classes[c].name, passes, t / passes * 1e9, in / (t / passes) / 1e6, (double)in / wire,
		       t / passes / recs * 1e6, used / passes / recs * 1e6, in / (used / passes) / 1e6);

		passes = 0;
		start = now(), cpu0 = cpu();
		do {
			for (size_t i = 0; i < n; i++) {
				if (len[i] < classes[c].min || len[i] > classes[c].max) continue;
				size_t m = bound + 1;
				if (BrotliDecoderDecompress(slen[i], stream[i], &m, out) != BROTLI_DECODER_RESULT_SUCCESS ||
				    m != len[i] || memcmp(out, rec[i], m) != 0) {
					fprintf(stderr, "record %zu: decoder failed\n", i);
					return 1;
				}
			}
			passes++;
		} while ((t = now() - start) < seconds);
		used = cpu() - cpu0;
		printf("BenchmarkBrotli/op=decode/impl=c-oneshot/q=%d/size=%s\t%ld\t%.0f ns/op\t%.2f MB/s\t%.3f us/rec\t%.3f "
		       "cpu-us/rec\t%.2f cpu-MB/s\n",
		       quality, classes[c].name, passes, t / passes * 1e9, in / (t / passes) / 1e6, t / passes / recs * 1e6,
		       used / passes / recs * 1e6, in / (used / passes) / 1e6);
	}
	return 0;
}

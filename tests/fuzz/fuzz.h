/*
 * fuzz.h: what every fuzz target (tests/fuzz/fuzz_<name>.c) shares.
 *
 * A target is one function of (data, size) that feeds a parser of the
 * library and frees all it made.  Built with `configure --enable-fuzz`
 * (clang, -fsanitize=fuzzer) each target is its own libFuzzer program and
 * FUZZ_TARGET(name) is LLVMFuzzerTestOneInput; otherwise the targets are
 * compiled into one replay program (fuzz_replay.c, YI_FUZZ_REPLAY) in which
 * FUZZ_TARGET(name) is fuzz_<name>(), called on every committed corpus and
 * regression input by `make check`.  Targets write nothing anywhere: output
 * goes to a counting sink (fuzz_sink).  Nothing is kept across inputs but
 * read-only set-up made once (fuzz_once).
 */
#ifndef YING_FUZZ_H
#define YING_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifdef YI_FUZZ_REPLAY
#define FUZZ_TARGET(name) int fuzz_##name(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name) \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* A ying_write_fn that only counts (opaque: a size_t). */
static inline int
fuzz_sink(void *opaque, const void *p, size_t n)
{
	(void)p;
	*(size_t *)opaque += n;
	return 0;
}

/* data[0..size) as a NUL-terminated string (malloc'd; the caller free()s);
 * NUL bytes inside are kept, so the string may be shorter than size. */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Write p (a parsed profile) in every format ying has, to a counting sink:
 * a parser's odd output must not trip the model or the writers.  The
 * writers proper (yi_write_*), not the public ones: those symbolize first,
 * which would open whatever files the fuzzed mappings name (slow, and not
 * hermetic).  The pprof and SVG writers allocate tables of a few hundred
 * KiB, fresh mappings under ASan (page faults); heavy = false leaves them
 * out (the targets pass size % 4 == 0: one input in four). */
static inline void
fuzz_write_all(const ying_profile *p, bool heavy)
{
	size_t n = 0;
	ying_top_opts t = YING_TOP_OPTS_INIT;
	ying_folded_opts f = YING_FOLDED_OPTS_INIT;
	ying_pprof_opts pp = YING_PPROF_OPTS_INIT;
	ying_svg_opts s = YING_SVG_OPTS_INIT;

	pp.gzip = 0;    /* the gzip writer has its own target */
	yi_write_top(p, &t, fuzz_sink, &n);
	t.json = 1;
	yi_write_top(p, &t, fuzz_sink, &n);
	yi_write_folded(p, &f, fuzz_sink, &n);
	if (heavy) {
		yi_pprof_write(p, &pp, fuzz_sink, &n);
		yi_write_svg(p, &s, fuzz_sink, &n);
	}
	yi_error_clear();
}

#endif /* YING_FUZZ_H */

/*
 * read_heap.h: private to the heap_v2 reader's files (read_heap.c,
 * read_heap_src.c; not installed): the line source over a 1 MiB window and
 * the field parsers the section parser uses.
 */
#ifndef YING_READ_HEAP_H
#define YING_READ_HEAP_H

#include <zlib.h>

#include "read.h"


#define WINDOW (1u << 20)        /* longest accepted line */

typedef struct src {
	const char *name;
	/* memory */
	const char *mem;
	size_t memlen, mempos;
	/* file */
	gzFile gz;
	/* window */
	char *buf;
	size_t start, end;
	bool eof;
	unsigned long lineno;
	/* the current stack's locations, until its t*: line adds it */
	YI_VEC(uint32_t) locs;
	/* (pc, leaf) -> location, direct-mapped, in front of the model's
	 * hashed map (stacks repeat their addresses: most lookups hit) */
	struct yi_heap_lc *lcache;
	/* the input's size when known (memory, a plain file; 0: unknown):
	 * read_heap.c sizes the big vectors from it once (reserve_from_size) */
	size_t size_hint;
	/* (count, bytes) -> yi_unsample's pair, direct-mapped: stacks repeat
	 * their counts (one object of a few sizes), and each pair costs an
	 * exp() (read_heap.c, unsample_cached) */
	struct yi_heap_uc *ucache;
} src;

#define LCACHE_BITS 12           /* 4096 entries, 64 KiB */
struct yi_heap_lc {
	uint64_t pc;
	uint32_t loc1;           /* location + 1; 0: empty entry */
	uint32_t leaf;
};

#define UCACHE_BITS 8            /* 256 entries, 8 KiB */
struct yi_heap_uc {
	uint64_t n, s;           /* all zero: (0, 0) -> (0, 0), yi_unsample's */
	double n_out, s_out;
};

/* ---- read_heap_src.c */
int yi_heap_src_line(src *s, char **line, size_t *len, bool *complete);
int yi_heap_perr(const src *s, const char *what, const char *at, const char *line);
bool yi_heap_parse_u64(const char **pp, uint64_t *out);
int yi_heap_parse_counts(const src *s, const char *line, const char *p, yi_counts *c,
    const char **rest);
int yi_heap_parse_tag(const src *s, const char *line, const char **pp, bool *star, uint64_t *uid);
bool yi_heap_is_thread_line(const char *line);

/* Inline: called for every field and every address of a dump. */
static inline const char *
yi_heap_skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* hex digit value + 1, 0 for a non-digit (read_heap_src.c) */
extern const uint8_t yi_heap_hex1[256];

/* 1 to 16 hex digits; false (and *pp unmoved) on none or more than 16. */
static inline bool
yi_heap_parse_hex(const char **pp, uint64_t *out)
{
	const unsigned char *p = (const unsigned char *)*pp, *q = p;
	uint64_t v = 0;
	unsigned d;

	while ((d = yi_heap_hex1[*q]) != 0) {
		if (q - p == 16)
			return false;
		v = v << 4 | (d - 1);
		q++;
	}
	if (q == p)
		return false;
	*pp = (const char *)q;
	*out = v;
	return true;
}

#endif /* YING_READ_HEAP_H */

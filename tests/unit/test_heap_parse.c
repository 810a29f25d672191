/*
 * test_heap_parse.c: the heap_v2 parser and jeprof-exact unsampling.
 *
 * Real dumps (tests/data, see README there) must give jeprof's totals for
 * every sample index; malformed input must fail with YING_EPARSE and a
 * message naming the line.
 */
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static ying_profile *
parse_str(const char *s, int *rc)
{
	ying_profile *p = NULL;
	*rc = ying_profile_read_mem(&p, s, strlen(s), "t.heap");
	return p;
}

static void
expect_error(const char *input, const char *msg_part, const char *what)
{
	int rc;
	ying_profile *p = parse_str(input, &rc);
	char buf[256];

	snprintf(buf, sizeof(buf), "%s: fails", what);
	ok(rc == YING_EPARSE && p == NULL, buf);
	snprintf(buf, sizeof(buf), "%s: message", what);
	has_str(ying_last_error(), msg_part, buf);
	ying_profile_free(p);
}

static void
check_total(ying_profile *p, ying_sample_index idx, double want, const char *what)
{
	double t = -1, half = (double)(p->stacks.n / 2 + 1);
	int rc = ying_profile_total(&t, p, idx);
	char m[200];
	size_t i;

	is_int(rc, 0, what);
	/* each stack's estimate is rounded once: an integer, within half a
	 * unit per stack of jeprof's unrounded sum */
	snprintf(m, sizeof(m), "%s: ying's total is a whole number", what);
	ok(t == floor(t), m);
	is_near(t, want, half, what);
	/* jeprof's own arithmetic, to the byte: jeprof prints %d of the
	 * float sum, so compare truncated values */
	snprintf(m, sizeof(m), "%s (jeprof's values, truncated)", what);
	is_int(ying_profile_use_jeprof_values(p), 0, m);
	ying_profile_total(&t, p, idx);
	is_near(floor(t), want, 0.0, m);
	for (i = 0; i < p->stacks.n; i++)  /* ying's values again */
		yi_stack_compute_values(p, &p->stacks.v[i]);
}

int
main(void)
{
	ying_profile *p;
	int rc;
	double t;

	/* --- real dumps against jeprof --- */
	rc = ying_profile_read_file(&p, tap_data("heap1.heap"));
	is_int(rc, 0, "heap1 parses");
	if (p) {
		is_u64(ying_profile_period(p), 524288, "heap1 period");
		ok(!ying_profile_has_alloc(p), "heap1 has no accum data");
		check_total(p, YING_INUSE_SPACE, 138335864, "heap1 inuse_space = jeprof");
		check_total(p, YING_INUSE_OBJECTS, 39368, "heap1 inuse_objects = jeprof");
		is_int(ying_profile_total(&t, p, YING_ALLOC_SPACE), YING_ENODATA, "heap1 alloc_space -> ENODATA");
		has_str(ying_last_error(), "prof_accum", "ENODATA message says how to fix it");
		is_int(p->threads.n, 2, "two thread header lines");
		is_str(yi_profile_str(p, p->threads.v[0].name), "main thread", "thread name with space");
		is_str(yi_profile_str(p, p->threads.v[1].name), "worker one", "second thread name");
		is_u64(p->header.objs, 263, "header t* objects");
		ok(p->has_maps && p->maps.n > 3, "maps parsed");
		ok(p->main_map >= 0, "main executable found");
		has_str(ying_profile_program(p), "heapgen", "program path");
		ok(p->tcounts.n >= p->stacks.n, "per-thread stack lines kept");
		ying_profile_free(p);
	}
	rc = ying_profile_read_file(&p, tap_data("heap1.heap.gz"));
	is_int(rc, 0, "gzipped dump parses");
	if (p) {
		check_total(p, YING_INUSE_SPACE, 138335864, "gzip: same total");
		ying_profile_free(p);
	}
	rc = ying_profile_read_file(&p, tap_data("heap_accum.heap"));
	is_int(rc, 0, "heap_accum parses");
	if (p) {
		ok(ying_profile_has_alloc(p), "accum data detected");
		is_u64(ying_profile_period(p), 1024, "lg_prof_sample 10");
		check_total(p, YING_INUSE_SPACE, 124173052, "accum inuse_space = jeprof");
		check_total(p, YING_INUSE_OBJECTS, 35842, "accum inuse_objects = jeprof");
		check_total(p, YING_ALLOC_SPACE, 206090242, "accum alloc_space = jeprof");
		check_total(p, YING_ALLOC_OBJECTS, 55477, "accum alloc_objects = jeprof");
		ying_profile_free(p);
	}
	rc = ying_profile_read_file(&p, tap_data("heap_exact.heap"));
	is_int(rc, 0, "heap_exact parses");
	if (p) {
		is_u64(ying_profile_period(p), 1, "lg_prof_sample 0");
		check_total(p, YING_INUSE_SPACE, 124191040, "exact inuse_space = jeprof");
		check_total(p, YING_INUSE_OBJECTS, 35052, "exact inuse_objects = jeprof");
		ying_profile_free(p);
	}
	{
		size_t len;
		char *buf = tap_slurp(tap_data("heap1.heap.gz"), &len);
		rc = ying_profile_read_mem(&p, buf, len, "mem.gz");
		is_int(rc, 0, "gzip from memory");
		if (p) {
			check_total(p, YING_INUSE_SPACE, 138335864, "gzip memory total");
			ying_profile_free(p);
		}
		rc = ying_profile_read_mem(&p, buf, len / 2, "half.gz");
		is_int(rc, YING_EPARSE, "truncated gzip -> EPARSE");
		has_str(ying_last_error(), "truncated", "truncated gzip message");
		{
			/* the streaming file path must notice the cut too, even
			 * when only the gzip trailer is missing */
			char tmpl[4096];
			int fd;
			snprintf(tmpl, sizeof(tmpl), "%s/ying-trunc-XXXXXX", tap_tmpdir());
			fd = mkstemp(tmpl);
			size_t cuts[] = { len / 2, len - 4 }, i;
			for (i = 0; i < 2; i++) {
				ok(fd >= 0 && ftruncate(fd, 0) == 0 && pwrite(fd, buf, cuts[i], 0) == (ssize_t)cuts[i],
				    "write truncated gzip file");
				rc = ying_profile_read_file(&p, tmpl);
				is_int(rc, YING_EPARSE, "truncated gzip file -> EPARSE");
				has_str(ying_last_error(), "truncated", "truncated gzip file message");
			}
			close(fd);
			unlink(tmpl);
		}
		free(buf);
	}
	is_int(ying_profile_read_file(&p, "/nonexistent/x.heap"), YING_ENOTFOUND, "missing file");
	has_str(ying_last_error(), "/nonexistent/x.heap", "message names the file");
	is_int(ying_profile_read_file(&p, "/"), YING_EINVAL, "directory rejected");

	/* --- the unsampling formula itself (jeprof AdjustSamples) --- */
	{
		double n, s;
		yi_unsample_exact(43, 46530855, 524288, &n, &s);
		is_near(n, 49.2517, 0.001, "reference example: objects");
		is_near(s, 53296860.3, 0.5, "reference example: bytes");
		yi_unsample(0, 0, 524288, &n, &s);
		is_near(n + s, 0, 0, "zero counts stay zero");
	}

	/* --- hand-written dumps: edge cases --- */
	p = parse_str("heap_v2/1\n  t*: 3: 3072 [0: 0]\n  t0: 3: 3072 [0: 0] a\tb c\n"
	    "@ 0x10 0x20\n  t*: 2: 2048 [0: 0]\n  t0: 2: 2048 [0: 0]\n"
	    "@\n  t*: 1: 1024 [0: 0]\n\nMAPPED_LIBRARIES:\n", &rc);
	is_int(rc, 0, "bare '@' accepted");
	if (p) {
		is_int(p->stacks.n, 2, "bare '@' is its own stack");
		is_int(p->stacks.v[1].nframes, 0, "with no frames");
		is_str(yi_profile_str(p, p->threads.v[0].name), "a\tb c", "thread name with tab and space");
		is_u64(p->locs.v[p->frames.v[1]].addr, 0x1f, "caller address adjusted by -1");
		is_u64(p->locs.v[p->frames.v[0]].addr, 0x10, "leaf address kept");
		ying_profile_free(p);
	}
	p = parse_str("heap_v2/2\r\n  t*: 1: 100 [0: 0]\r\n@ 0xAbC\r\n  t*: 1: 100 [0: 0]\r\n", &rc);
	is_int(rc, 0, "CRLF and uppercase hex, no maps section");
	if (p) {
		ok(!p->has_maps, "no maps section noted");
		ying_profile_free(p);
	}
	p = parse_str("heap_v2/524288\n  t*: 0: 0 [0: 0]\n  t0: 0: 0 [0: 0]\n\nMAPPED_LIBRARIES:\n", &rc);
	is_int(rc, 0, "empty profile parses");
	if (p) {
		is_int(p->stacks.n, 0, "no stacks");
		ying_profile_free(p);
	}
	expect_error("", "empty input", "empty input");
	expect_error("hello world\n", "t.heap: not a heap profile (expected heap_v2 or pprof)",
	    "text that is no dump: not a heap profile");
	expect_error("root:x:0:0:root:/root:/bin/bash\n", "t.heap: not a heap profile",
	    "passwd-like text (whose 'r' is a protobuf tag byte): not a heap profile");
	expect_error("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "t.heap: not a heap profile",
	    "a PNG header: not a heap profile");
	expect_error("heap profile: 1: 2 [3: 4] @ heap_v2/524288\n", "gperftools", "gperftools header");
	expect_error("heap_v2/0\n", "positive sample period", "zero period");
	expect_error("heap_v2/x\n", "t.heap:1:9", "bad period names line and column");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n", "ends after an '@' line", "truncated after '@'");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n  t*: 1: 10", "middle of a line", "truncated mid-line");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10 zz\n  t*: 1: 1 [0: 0]\n", "t.heap:3:8", "bad address");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x12345678901234567\n  t*: 1: 1 [0: 0]\n",
	    "1 to 16 hex digits", "address too long");
	expect_error("heap_v2/1\n  t*: 1: 99999999999999999999 [0: 0]\n", "byte count", "number > 2^64");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n  t3: 1: 1 [0: 0]\n", "'t*:' total", "thread line before total");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n  t*: 1: 1 [0 0]\n", "':' after the cumulative", "bad brackets");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\nbogus\n", "t.heap:3:", "unknown line");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n\nNOT_MAPS\n", "MAPPED_LIBRARIES", "blank then junk");
	expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\nzzzz\n", "address range", "bad maps line");
	expect_error("heap_v2/1\n", "process-wide 't*:'", "no header total");
	{
		/* a 2 MiB line must be rejected, not buffered without bound */
		size_t n = 2u << 20;
		char *big = malloc(n + 64);
		strcpy(big, "heap_v2/1\n  t*: 1: 1 [0: 0]\n@");
		memset(big + strlen(big), ' ', n);
		big[n + 30] = '\n';
		big[n + 31] = '\0';
		expect_error(big, "longer than", "overlong line");
		free(big);
	}
	{
		/* ying's build-id lines after the maps, and the maps' devices */
		static const char d[] =
		    "heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x2010\n  t*: 1: 1 [0: 0]\n\n"
		    "MAPPED_LIBRARIES:\n"
		    "1000-2000 r--p 00000000 fe:01 42 /bin/prog\n"
		    "2000-3000 r-xp 00001000 fe:01 42 /bin/prog\n"
		    "7000-8000 r-xp 00000000 08:11 7 /lib/libx.so\n"
		    "ying-build-id: 1000 0a1b2c3d\n"
		    "ying-build-id: 9000 ffff\n";
		p = parse_str(d, &rc);
		is_int(rc, 0, "dump with build-id lines parses");
		if (p) {
			is_int(p->maps.n, 3, "build-id lines are no mappings");
			is_str(yi_profile_str(p, p->maps.v[0].build_id), "0a1b2c3d",
			    "build ID on the object's first mapping");
			is_str(yi_profile_str(p, p->maps.v[1].build_id), "0a1b2c3d",
			    "and on its other mappings");
			is_int(p->maps.v[2].build_id, 0, "not on another object's");
			ok(p->maps.v[0].has_dev && p->maps.v[0].dev_major == 0xfe &&
			    p->maps.v[0].dev_minor == 1, "device fe:01 kept");
			ok(p->maps.v[2].dev_major == 8 && p->maps.v[2].dev_minor == 0x11,
			    "device 08:11 kept");
			is_int(p->maps.v[1].inode, 42, "inode kept");
			ying_profile_free(p);
		}
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n"
		    "ying-build-id: zz 00\n", "start address", "build-id line without address");
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n"
		    "ying-build-id: 1000 abc\n", "t.heap:5:", "build ID of odd length");
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n"
		    "ying-build-id: 1000 ABCD\n", "lowercase hex", "build ID in uppercase");
	}
	{
		/* the field parsers at their limits (table-driven since 17.3):
		 * 2^64 - 1 is a count, 2^64 is an overflow naming the column;
		 * 16 hex digits are an address, 17 are not */
		p = parse_str("heap_v2/1\n  t*: 18446744073709551615: 1 [0: 0]\n"
		    "@ 0xffffffffffffffff 0xFFFFFFFFFFFFFFF0\n"
		    "  t*: 1: 18446744073709551615 [0: 0]\n", &rc);
		is_int(rc, 0, "UINT64_MAX counts and 16-digit addresses parse");
		if (p) {
			is_u64(p->header.objs, UINT64_MAX, "header objects = 2^64 - 1");
			is_u64(p->stacks.v[0].raw.bytes, UINT64_MAX, "stack bytes = 2^64 - 1");
			is_u64(p->locs.v[p->frames.v[0]].addr, UINT64_MAX, "leaf address kept");
			is_u64(p->locs.v[p->frames.v[1]].addr, UINT64_C(0xFFFFFFFFFFFFFFEF),
			    "uppercase caller address, minus one");
			ying_profile_free(p);
		}
		expect_error("heap_v2/1\n  t*: 18446744073709551616: 1 [0: 0]\n",
		    "t.heap:2:7: expected an object count", "object count of 2^64");
		expect_error("heap_v2/1\n  t*: 1: 99999999999999999999 [0: 0]\n",
		    "t.heap:2:10: expected a byte count", "byte count of 20 nines");
		expect_error("heap_v2/18446744073709551616\n", "t.heap:1:9: expected a positive "
		    "sample period", "sample period of 2^64");
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10000000000000000\n"
		    "  t*: 1: 1 [0: 0]\n", "t.heap:3:5: expected 1 to 16 hex digits",
		    "17 hex digits");
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x1g\n  t*: 1: 1 [0: 0]\n",
		    "t.heap:3:6: unexpected character in address", "a non-hex digit");
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x\n  t*: 1: 1 [0: 0]\n",
		    "t.heap:3:5: expected 1 to 16 hex digits", "0x without digits");
		/* a file ending without a newline: in the stacks an error naming
		 * the line, in the maps the cut-off line is dropped */
		expect_error("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n  t*: 1: 1 [0: 0]",
		    "t.heap:4: file ends in the middle of a line", "stack counts without newline");
		p = parse_str("heap_v2/1\n  t*: 1: 1 [0: 0]\n@ 0x10\n  t*: 1: 1 [0: 0]\n\n"
		    "MAPPED_LIBRARIES:\n1000-2000 r-xp 00000000 fe:01 42 /bin/prog\n"
		    "3000-4000 r-xp 00000000 fe:01 42 /bin/pr", &rc);
		is_int(rc, 0, "maps ending without newline parse");
		if (p) {
			is_int(p->maps.n, 1, "the cut-off maps line is dropped");
			ying_profile_free(p);
		}
	}
	{
		/* the reader's (pc, leaf) -> location cache: the same pc as a
		 * leaf and as a caller are two locations (pc, pc - 1); 6000
		 * distinct addresses (more than the cache's 4096 entries, so
		 * entries are evicted and reused) each keep their own location */
		enum { NA = 6000 };
		size_t cap = 64 + (size_t)NA * 64, len = 0, i;
		char *d = malloc(cap);
		bool good = true;
		len += (size_t)snprintf(d + len, cap - len, "heap_v2/1\n  t*: 1: 1 [0: 0]\n"
		    "@ 0x4000 0x4000 0x4000\n  t*: 1: 1 [0: 0]\n");
		for (i = 0; i < NA; i++)
			len += (size_t)snprintf(d + len, cap - len, "@ 0x%zx 0x%zx\n  t*: 1: 1 [0: 0]\n",
			    0x100000 + i * 0x10, 0x100000 + ((i * 7919) % NA) * 0x10);
		rc = ying_profile_read_mem(&p, d, len, "t.heap");
		is_int(rc, 0, "6000 stacks over 6000 addresses parse");
		if (p) {
			const yi_stack *st = &p->stacks.v[0];
			const uint32_t *fr = &p->frames.v[st->frame_off];
			is_u64(p->locs.v[fr[0]].addr, 0x4000, "leaf pc as dumped");
			is_u64(p->locs.v[fr[1]].addr, 0x3fff, "same pc as caller: pc - 1");
			ok(fr[1] == fr[2] && fr[0] != fr[1], "one caller location, another leaf one");
			for (i = 0; i < NA && good; i++) {
				st = &p->stacks.v[1 + i];
				fr = &p->frames.v[st->frame_off];
				good = st->nframes == 2 &&
				    p->locs.v[fr[0]].addr == 0x100000 + i * 0x10 &&
				    p->locs.v[fr[1]].addr == 0x100000 + ((i * 7919) % NA) * 0x10 - 1;
			}
			ok(good, "every frame names its own address");
			is_int(p->locs.n, 2 + 2 * NA, "one location per (address, leaf)");
			ying_profile_free(p);
		}
		free(d);
	}
	{
		/* Sizing from the input (read_heap.c, reserve_from_size): past
		 * 4096 stacks the stacks, frames and per-thread counts get the
		 * capacity the rest of the input implies (1/16 slack), not the
		 * next power of two: 10000 stacks would make doubling stop at
		 * 16384.  Through memory, a plain file (its st_size), and a
		 * budget too small for the reservation (doubling again). */
		enum { NS = 10000, NF = 6 };
		size_t cap = 256 + (size_t)NS * 160, len = 0, i;
		char *d = malloc(cap), path[4096];
		int fd;

		len += (size_t)snprintf(d + len, cap - len, "heap_v2/1\n  t*: %d: %d [0: 0]\n"
		    "  t0: %d: %d [0: 0] main\n", NS, NS * 16, NS, NS * 16);
		for (i = 0; i < NS; i++)
			len += (size_t)snprintf(d + len, cap - len, "@ 0x%zx 0x%zx 0x%zx 0x%zx 0x%zx 0x%zx\n"
			    "  t*: 1: 16 [0: 0]\n  t0: 1: 16 [0: 0]\n", 0x1000 + i % 64, 0x2000 + i % 8,
			    0x3000 + i / 64 % 8, 0x4000 + i / 512, (size_t)0x5000, (size_t)0x6000);
		len += (size_t)snprintf(d + len, cap - len, "\nMAPPED_LIBRARIES:\n"
		    "00001000-00008000 r-xp 00000000 08:01 42 /usr/bin/prog\n");
		rc = ying_profile_read_mem(&p, d, len, "t.heap");
		is_int(rc, 0, "10000 stacks parse (memory)");
		if (p) {
			is_int(p->stacks.n, NS, "10000 stacks");
			ok(p->stacks.cap >= NS && p->stacks.cap <= NS * 9 / 8,
			    "stacks sized from the input, not doubled");
			ok(p->frames.cap >= NS * NF && p->frames.cap <= NS * NF * 9 / 8,
			    "frames sized from the input");
			ok(p->tcounts.n == NS && p->tcounts.cap <= NS * 9 / 8,
			    "per-thread counts sized from the input");
			is_u64(p->locs.v[p->frames.v[p->stacks.v[NS - 1].frame_off + 3]].addr,
			    0x4000 + (NS - 1) / 512 - 1, "the last stack's frames as dumped");
			ying_profile_free(p);
		}
		snprintf(path, sizeof(path), "%s/reserve-XXXXXX", tap_tmpdir());
		fd = mkstemp(path);
		ok(fd >= 0 && write(fd, d, len) == (ssize_t)len && close(fd) == 0, "dump written");
		rc = ying_profile_read_file(&p, path);
		is_int(rc, 0, "10000 stacks parse (plain file)");
		if (p) {
			ok(p->stacks.cap >= NS && p->stacks.cap <= NS * 9 / 8,
			    "file: stacks sized from its st_size");
			ok(p->frames.cap >= NS * NF && p->frames.cap <= NS * NF * 9 / 8,
			    "file: frames sized from its st_size");
			ying_profile_free(p);
		}
		unlink(path);
		/* gzip: the size comes from the trailer's ISIZE */
		snprintf(path, sizeof(path), "%s/reserve-XXXXXX", tap_tmpdir());
		fd = mkstemp(path);
		{
			gzFile gz = fd >= 0 ? gzdopen(fd, "wb") : NULL;
			ok(gz != NULL && gzwrite(gz, d, (unsigned)len) == (int)len &&
			    gzclose(gz) == Z_OK, "gzipped dump written");
		}
		rc = ying_profile_read_file(&p, path);
		is_int(rc, 0, "10000 stacks parse (gzip file)");
		if (p) {
			is_int(p->stacks.n, NS, "gzip: 10000 stacks");
			ok(p->stacks.cap >= NS && p->stacks.cap <= NS * 9 / 8,
			    "gzip: stacks sized from the trailer's ISIZE");
			ying_profile_free(p);
		}
		unlink(path);
		/* an input whose tail is not stacks (4 MB of blank lines before
		 * MAPPED_LIBRARIES) makes the estimate ten times too big: in a
		 * budget that holds the real profile but not that, nothing is
		 * reserved and the parse succeeds by doubling */
		{
			size_t head = 0, nat = 0, blank = (size_t)4 << 20, elen;
			char *e;
			/* the first 5000 stacks: up to the 5001st "\n@" */
			while (nat < 5001 && head + 1 < len)
				nat += d[head++] == '\n' && d[head] == '@';
			e = malloc(head + blank + 32);
			memcpy(e, d, head);
			memset(e + head, '\n', blank);
			elen = head + blank;
			elen += (size_t)snprintf(e + elen, 32, "MAPPED_LIBRARIES:\n");
			setenv("YING_MAX_MEMORY", "5000000", 1);
			rc = ying_profile_read_mem(&p, e, elen, "t.heap");
			is_int(rc, 0, "an overestimate in a tight budget: parses");
			if (p) {
				is_int(p->stacks.n, 5000, "overestimate: 5000 stacks");
				is_u64(p->stacks.cap, 8192, "overestimate: nothing reserved, doubling");
				ying_profile_free(p);
			}
			free(e);
		}
		unsetenv("YING_MAX_MEMORY");
		free(d);
	}
	{
		/* the reader's (count, bytes) -> unsampled cache (read_heap.c,
		 * unsample_cached): every stack's four values are exactly
		 * yi_unsample's, over 3000 stacks of ~600 distinct pairs (more
		 * than its 256 slots: collisions and evictions), zero counts
		 * included, at a sampling period where the scaling matters */
		enum { NU = 3000 };
		size_t cap = 128 + (size_t)NU * 96, len = 0, i, bad = 0;
		char *d = malloc(cap);

		len += (size_t)snprintf(d + len, cap - len, "heap_v2/524288\n  t*: 1: 1 [1: 1]\n");
		for (i = 0; i < NU; i++)
			len += (size_t)snprintf(d + len, cap - len, "@ 0x%zx\n  t*: %zu: %zu [%zu: %zu]\n",
			    0x1000 + i, i % 23, (i % 23) * (16 + (i % 29) * 48), i % 31,
			    (i % 31) * 4096 + i % 7);
		rc = ying_profile_read_mem(&p, d, len, "t.heap");
		is_int(rc, 0, "3000 stacks of repeated counts parse");
		if (p) {
			is_int(p->stacks.n, NU, "3000 stacks");
			for (i = 0; i < p->stacks.n; i++) {
				const yi_stack *st = &p->stacks.v[i];
				double w[4];
				yi_unsample(st->raw.objs, st->raw.bytes, 524288,
				    &w[YING_INUSE_OBJECTS], &w[YING_INUSE_SPACE]);
				yi_unsample(st->raw.acc_objs, st->raw.acc_bytes, 524288,
				    &w[YING_ALLOC_OBJECTS], &w[YING_ALLOC_SPACE]);
				bad += memcmp(w, st->val, sizeof(w)) != 0 ||
				    st->raw.objs != i % 23 || st->raw.acc_objs != i % 31;
			}
			is_int(bad, 0, "every stack's values are yi_unsample's, bit for bit");
			ying_profile_free(p);
		}
		free(d);
	}
	{
		/* binary junk must not crash */
		unsigned char junk[4096];
		unsigned i;
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (unsigned char)(i * 131 + 7);
		rc = ying_profile_read_mem(&p, junk, sizeof(junk), "junk");
		ok(rc < 0 && p == NULL, "binary junk rejected");
	}
	return tap_done();
}

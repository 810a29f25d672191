/*
 * test_profile_build.c: the model's constructor from addresses and counts
 * (yi_profile_new_heap, yi_profile_add_pcs, model.c), the heap_v2 reader's
 * MAPPED_LIBRARIES parser on its own (yi_heap_parse_maps, read_heap.c) and
 * the one reader of /proc/self/maps (yi_maps_read, base_maps.c).
 *
 * The constructor replaced four places that printed heap_v2 text only to
 * parse it again (the giant listing, the symbol endpoint, the recent and
 * giant readers), so each check builds the same profile both ways, the
 * text the old code printed through yi_heap_parse_mem and the constructor
 * plus yi_heap_parse_maps, and compares every field the model has, the
 * unsampled doubles bit for bit.  YING_BENCH_SITES=N times both ways on N
 * sites (a diagnostic line, never an assertion).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

/* The first difference between a and b, or NULL (time and source aside). */
static const char *
diff_profiles(const ying_profile *a, const ying_profile *b)
{
	static char why[200];

#define D(cond, ...) do { if (cond) { snprintf(why, sizeof(why), __VA_ARGS__); \
	return why; } } while (0)
	D(a->format != b->format || a->period != b->period, "format or period");
	D(a->has_accum != b->has_accum || a->has_maps != b->has_maps, "flags");
	D(memcmp(&a->header, &b->header, sizeof(a->header)) != 0, "header counts");
	D(a->main_map != b->main_map, "main_map %d, %d", a->main_map, b->main_map);
	D(a->stacks.n != b->stacks.n, "stacks %zu, %zu", a->stacks.n, b->stacks.n);
	D(a->frames.n != b->frames.n || (a->frames.n && memcmp(a->frames.v, b->frames.v,
	    a->frames.n * sizeof(*a->frames.v)) != 0), "frames");
	for (size_t i = 0; i < a->stacks.n; i++)
		D(memcmp(&a->stacks.v[i], &b->stacks.v[i], sizeof(yi_stack)) != 0,
		    "stack %zu (counts or unsampled values)", i);
	D(a->locs.n != b->locs.n, "locations %zu, %zu", a->locs.n, b->locs.n);
	for (size_t i = 0; i < a->locs.n; i++)
		D(memcmp(&a->locs.v[i], &b->locs.v[i], sizeof(yi_loc)) != 0, "location %zu", i);
	D(a->threads.n != b->threads.n || a->tcounts.n != b->tcounts.n, "threads");
	D(a->maps.n != b->maps.n, "mappings %zu, %zu", a->maps.n, b->maps.n);
	for (size_t i = 0; i < a->maps.n; i++) {
		yi_mapping x = a->maps.v[i], y = b->maps.v[i];
		D(strcmp(yi_profile_str(a, x.path), yi_profile_str(b, y.path)) != 0 ||
		    strcmp(yi_profile_str(a, x.build_id), yi_profile_str(b, y.build_id)) != 0,
		    "mapping %zu path or build ID", i);
		x.path = y.path = x.build_id = y.build_id = 0;
		D(memcmp(&x, &y, sizeof(x)) != 0, "mapping %zu", i);
	}
	D(a->maps_text_len != b->maps_text_len || (a->maps_text_len &&
	    memcmp(a->maps_text, b->maps_text, a->maps_text_len) != 0), "maps text");
#undef D
	return NULL;
}

typedef struct site {
	uint64_t objs, bytes, acc_objs, acc_bytes;
	size_t n;
	uint64_t pcs[8];
} site;

/* The heap_v2 text the replaced code printed (read_giant.c's make_profile). */
static char *
as_text(uint64_t period, const yi_counts *tot, const site *s, size_t n,
    const char *maps, size_t *len)
{
	ying_membuf b = YING_MEMBUF_INIT;
	yi_out *o = malloc(sizeof(*o));

	yi_out_init(o, ying_write_membuf, &b);
	yi_out_printf(o, "heap_v2/%" PRIu64 "\n  t*: %" PRIu64 ": %" PRIu64 " [%" PRIu64
	    ": %" PRIu64 "]\n", period, tot->objs, tot->bytes, tot->acc_objs, tot->acc_bytes);
	for (size_t i = 0; i < n; i++) {
		yi_out_putc(o, '@');
		for (size_t k = 0; k < s[i].n; k++)
			yi_out_printf(o, " 0x%" PRIx64, s[i].pcs[k]);
		yi_out_printf(o, "\n  t*: %" PRIu64 ": %" PRIu64 " [%" PRIu64 ": %" PRIu64 "]\n",
		    s[i].objs, s[i].bytes, s[i].acc_objs, s[i].acc_bytes);
	}
	yi_out_puts(o, "\nMAPPED_LIBRARIES:\n");
	yi_out_write(o, maps, strlen(maps));
	if (yi_out_finish(o) != 0) {
		printf("Bail out! formatting\n");
		exit(1);
	}
	free(o);
	*len = b.len;
	return b.data;
}

static ying_profile *
built(uint64_t period, const yi_counts *tot, const site *s, size_t n, const char *maps)
{
	ying_profile *p = NULL;
	int rc = yi_profile_new_heap(&p, "built", period, tot);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		yi_counts c = { s[i].objs, s[i].bytes, s[i].acc_objs, s[i].acc_bytes };
		rc = yi_profile_add_pcs(p, s[i].pcs, s[i].n, &c);
	}
	if (rc == 0)
		rc = yi_heap_parse_maps(p, maps, strlen(maps), "maps");
	if (rc != 0) {
		printf("Bail out! building: %s\n", ying_last_error());
		exit(1);
	}
	return p;
}

static ying_profile *
parsed(uint64_t period, const yi_counts *tot, const site *s, size_t n, const char *maps)
{
	ying_profile *p = NULL;
	size_t len;
	char *t = as_text(period, tot, s, n, maps, &len);

	if (yi_heap_parse_mem(&p, t, len, "text") != 0) {
		printf("Bail out! parsing: %s\n", ying_last_error());
		exit(1);
	}
	{
		ying_membuf m = YING_MEMBUF_INIT;
		m.data = t;
		ying_membuf_release(&m);
	}
	return p;
}

static const char maps_fixture[] =
	"00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/prog\n"
	"00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/prog\n"
	"\n"
	"01b7e000-01b9f000 rw-p 00000000 00:00 0          [heap]\n"
	"7f0a10000000-7f0a10021000 rw-p 00000000 00:00 0\n"
	"7f0a20000000-7f0a201c0000 r-xp 00000000 fd:01 42  /opt/my app/lib/libthing.so.1\n"
	"7f0a30000000-7f0a30010000 r-xp 00001000 fd:01 43 /opt/gone/libold.so (deleted)\n"
	"7f0a40000000-7f0a40100000 r-xp 00000000 fd:01 44 /usr/lib/libjemalloc.so.2\n"
	"7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0                          [stack]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n"
	"ying-build-id: 400000 0123abcd\n"
	"ying-build-id: 12345 ffee\n"
	"7f0a50000000-7f0a50001000 r-xp 00000000 fd:01 45 /no/newline.so";

static void
test_same_as_parser(void)
{
	static const site s[] = {
		{ 1, 4096, 0, 0, 3, { 0x401000, 0x402010, 0x403020 } },
		{ 2, 100, 0, 0, 2, { 0x401000, 0x402011 } },      /* leaf shared, caller differs */
		{ 0, 0, 0, 0, 0, { 0 } },                         /* no frames */
		{ 3, 3 << 20, 0, 0, 1, { 0 } },                   /* pc 0 */
		{ 1, 1, 0, 0, 2, { 0x402011, 0x402011 } },        /* leaf and caller at one pc */
		{ UINT64_MAX, UINT64_MAX, 0, 0, 1, { UINT64_MAX } },
		{ 1, 64, 0, 0, 8, { 8, 7, 6, 5, 4, 3, 2, 1 } },
	};
	static const site acc[] = {
		{ 1, 48, 5, 4096, 2, { 0x7f0a20001234, 0x400500 } },
		{ 0, 0, 9, 1 << 20, 1, { 0x7f0a40000010 } },
		{ 2, 2 << 20, 2, 2 << 20, 3, { 0x400600, 0x400700, 0x400800 } },
	};
	yi_counts tot = { 7, 99, 0, 0 }, tot2 = { 3, 1 << 21, 16, 3 << 20 };
	ying_profile *a, *b;
	const char *d;

	a = parsed(1, &tot, s, sizeof(s) / sizeof(s[0]), maps_fixture);
	b = built(1, &tot, s, sizeof(s) / sizeof(s[0]), maps_fixture);
	d = diff_profiles(a, b);
	ok(d == NULL, "period 1, odd stacks, the maps fixture: the profile the parser makes");
	if (d)
		printf("# first difference: %s\n", d);
	ok(a->stacks.n == 7 && b->stacks.v[2].nframes == 0, "the frameless stack is its own");
	ying_profile_free(a);
	ying_profile_free(b);

	/* sampled, with cumulative counts: the unsampled doubles bit for bit */
	a = parsed(524288, &tot2, acc, 3, "");
	b = built(524288, &tot2, acc, 3, "");
	d = diff_profiles(a, b);
	ok(d == NULL, "period 2^19 with cumulative counts: the same doubles");
	if (d)
		printf("# first difference: %s\n", d);
	ok(b->has_accum && b->stacks.v[0].val[YING_INUSE_SPACE] > 48, "unsampled at the period");
	ying_profile_free(a);
	ying_profile_free(b);

	/* no stacks at all: the recent reader's maps-only profile */
	a = parsed(1, &(yi_counts){ 0, 0, 0, 0 }, NULL, 0, maps_fixture);
	b = built(1, NULL, NULL, 0, maps_fixture);
	ok(diff_profiles(a, b) == NULL, "maps only, NULL totals: the same");
	ying_profile_free(a);
	ying_profile_free(b);

	ok(yi_profile_new_heap(&a, "zero", 0, NULL) == YING_EINVAL && a == NULL,
	    "period 0 refused");
}

static void
test_maps_fixture(void)
{
	ying_profile *p = built(1, NULL, NULL, 0, maps_fixture);
	bool spaces = false, deleted = false, last = false, jem = false;
	const char *bid = "";

	for (size_t i = 0; i < p->maps.n; i++) {
		const char *path = yi_profile_str(p, p->maps.v[i].path);
		spaces |= strcmp(path, "/opt/my app/lib/libthing.so.1") == 0;
		deleted |= strcmp(path, "/opt/gone/libold.so (deleted)") == 0;
		last |= strstr(path, "newline") != NULL;
		jem |= p->maps.v[i].is_jemalloc && strstr(path, "libjemalloc") != NULL;
		if (p->maps.v[i].start == 0x400000)
			bid = yi_profile_str(p, p->maps.v[i].build_id);
	}
	ok(spaces, "a path with spaces is kept whole");
	ok(deleted, "a deleted file keeps its ' (deleted)'");
	ok(!last, "a last line without its newline is skipped (cut off)");
	ok(jem, "libjemalloc is flagged");
	is_str(bid, "0123abcd", "the build-id line names the executable's mappings");
	ok(p->main_map >= 0 && strcmp(yi_profile_str(p, p->maps.v[p->main_map].path),
	    "/usr/bin/prog") == 0, "the main executable");
	ok(p->has_maps && strstr(p->maps_text, "[vsyscall]") && !strstr(p->maps_text, "newline"),
	    "the maps text is kept as the reader keeps it");
	ying_profile_free(p);

	ok(yi_profile_new_heap(&p, "bad", 1, NULL) == 0, "a profile for a bad line");
	ok(yi_heap_parse_maps(p, "00400000-00452000 r-xp 0 08:02 1 /a\nzzz\n", 40, "the maps")
	    == YING_EPARSE, "a bad line is a parse error");
	has_str(ying_last_error(), "the maps:2:", "it names the text and the line");
	ying_profile_free(p);
}

static void
test_maps_read(void)
{
	char *t = NULL, dir[512], path[600];
	size_t n = 0;
	ying_profile *p = NULL;
	bool self = false;
	int fd;
	const char *tmp = getenv("TMPDIR");

	/* the test's own temporary directory (make check sets TMPDIR) */
	snprintf(dir, sizeof(dir), "%s/ying-maps-XXXXXX", tmp && *tmp ? tmp : ".");
	ok(yi_maps_read(NULL, 0, &t, &n) == 0 && t && n == strlen(t) && n > 0,
	    "this process's maps, NUL-terminated");
	ok(t && strstr(t, "[stack]") != NULL, "it lists the stack");
	ok(yi_profile_new_heap(&p, "self", 1, NULL) == 0 &&
	    yi_heap_parse_maps(p, t, n, "self") == 0, "the reader parses them");
	for (size_t i = 0; p && i < p->maps.n; i++)
		self |= p->maps.v[i].exec &&
		    strstr(yi_profile_str(p, p->maps.v[i].path), "test_profile_build") != NULL;
	ok(self, "this test's executable is among the executable mappings");
	ok(p && p->main_map >= 0, "and a main executable");
	ying_profile_free(p);
	free(t);

	ok(yi_maps_read(NULL, 64, &t, &n) == YING_ELIMIT && t == NULL, "past the bound: ELIMIT");
	has_str(ying_last_error(), "/proc/self/maps is larger than 64 bytes", "naming the file");
	ok(yi_maps_read("/nonexistent/maps", 0, &t, NULL) == YING_ESYS, "no file: ESYS");
	has_str(ying_last_error(), "cannot open /nonexistent/maps", "naming it");

	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/empty", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	close(fd);
	ok(yi_maps_read(path, 0, &t, &n) == 0 && t && t[0] == '\0' && n == 0,
	    "an empty file: an empty string");
	free(t);
	unlink(path);
	rmdir(dir);
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* YING_BENCH_SITES=N: both ways on N sites of 8 frames (a diagnostic). */
static void
bench(void)
{
	const char *e = getenv("YING_BENCH_SITES");
	size_t n = e ? strtoul(e, NULL, 10) : 0;
	site *s;
	double t0, t1, t2, best_text = 1e9, best_built = 1e9;
	yi_counts tot = { 0, 0, 0, 0 };

	if (n == 0 || (s = calloc(n, sizeof(*s))) == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		s[i].objs = 1 + i % 3;
		s[i].bytes = 64 << (i % 10);
		s[i].n = 8;
		for (size_t k = 0; k < 8; k++)
			s[i].pcs[k] = 0x400000 + ((i * 7919 + k * 104729) % 65536) * 16;
	}
	for (int r = 0; r < 5; r++) {
		ying_profile *a, *b;
		t0 = now_s();
		a = parsed(1, &tot, s, n, maps_fixture);
		t1 = now_s();
		b = built(1, &tot, s, n, maps_fixture);
		t2 = now_s();
		if (t1 - t0 < best_text)
			best_text = t1 - t0;
		if (t2 - t1 < best_built)
			best_built = t2 - t1;
		ying_profile_free(a);
		ying_profile_free(b);
	}
	printf("# %zu sites x 8 frames, best of 5: text printed and parsed %.3f ms, "
	    "constructor %.3f ms\n", n, best_text * 1e3, best_built * 1e3);
	free(s);
}

int
main(void)
{
	test_same_as_parser();
	test_maps_fixture();
	test_maps_read();
	bench();
	return tap_done();
}

/*
 * test_memory.c: the memory breakdown (live_memory.c) on a jemalloc whose
 * counters are known (a mallctl of the test's own, given with
 * ying_ctl_use) and a /proc of the test's own (a fixture tree named after
 * the test's pid): how the anonymous RSS is carved into jemalloc's parts,
 * what is listed apart when jemalloc counts more than is resident, the
 * size classes and their call sites from a synthetic profile, the advice,
 * the cgroup, the JSON and the text; and the breakdown of the test process
 * itself from the real /proc, whose parts sum to its RSS.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "synth.h"
#include "tap.h"

#define MiB ((uint64_t)1 << 20)

/* ---- a jemalloc whose counters the test sets ------------------------------ */

static struct {
	size_t allocated, active, resident, metadata, mapped, retained;
	size_t pdirty, pmuzzy, tcache;
} fj;

static const struct { const char *name; unsigned size, nregs, curregs, curslabs; } bins[] = {
	{ "16", 16, 256, 100, 1 },     /* 4096 in slabs, 1600 used */
	{ "64", 64, 64, 10, 2 },       /* 8192, 640 */
	{ "256", 256, 16, 16, 1 },     /* 4096, all used */
};

static int
put(void *oldp, size_t *oldlenp, const void *v, size_t n)
{
	if (oldp == NULL || oldlenp == NULL)
		return 0;
	if (*oldlenp != n) {        /* jemalloc's READ: copy, say the size, EINVAL */
		memcpy(oldp, v, n < *oldlenp ? n : *oldlenp);
		*oldlenp = n;
		return EINVAL;
	}
	memcpy(oldp, v, n);
	return 0;
}

static int
fake_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	static const char *ver = "5.3.0-0-test";
	const struct { const char *n; size_t *v; } sz[] = {
		{ "stats.allocated", &fj.allocated }, { "stats.active", &fj.active },
		{ "stats.resident", &fj.resident }, { "stats.metadata", &fj.metadata },
		{ "stats.mapped", &fj.mapped }, { "stats.retained", &fj.retained },
		{ "stats.arenas.4096.pdirty", &fj.pdirty },
		{ "stats.arenas.4096.pmuzzy", &fj.pmuzzy },
		{ "stats.arenas.4096.tcache_bytes", &fj.tcache },
	};
	unsigned j;
	char field[32];

	(void)newp;
	(void)newlen;
	if (strcmp(name, "version") == 0)
		return put(oldp, oldlenp, &ver, sizeof(ver));
	if (strcmp(name, "epoch") == 0)
		return 0;
	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++)
		if (strcmp(name, sz[i].n) == 0)
			return put(oldp, oldlenp, sz[i].v, sizeof(size_t));
	if (strcmp(name, "arenas.page") == 0) {
		size_t page = 4096;
		return put(oldp, oldlenp, &page, sizeof(page));
	}
	if (strcmp(name, "arenas.nbins") == 0 || strcmp(name, "arenas.narenas") == 0) {
		unsigned n = name[7] == 'n' && name[8] == 'b' ? 3 : 4;
		return put(oldp, oldlenp, &n, sizeof(n));
	}
	if (strcmp(name, "background_thread") == 0) {
		bool b = false;
		return put(oldp, oldlenp, &b, sizeof(b));
	}
	if (strcmp(name, "arenas.dirty_decay_ms") == 0 ||
	    strcmp(name, "arenas.muzzy_decay_ms") == 0) {
		ssize_t ms = name[7] == 'd' ? 10000 : 0;
		return put(oldp, oldlenp, &ms, sizeof(ms));
	}
	if (sscanf(name, "arenas.bin.%u.%31s", &j, field) == 2 && j < 3) {
		if (strcmp(field, "size") == 0) {
			size_t v = bins[j].size;
			return put(oldp, oldlenp, &v, sizeof(v));
		}
		if (strcmp(field, "nregs") == 0) {
			uint32_t v = bins[j].nregs;
			return put(oldp, oldlenp, &v, sizeof(v));
		}
	}
	if (sscanf(name, "stats.arenas.4096.bins.%u.%31s", &j, field) == 2 && j < 3) {
		size_t v = strcmp(field, "curregs") == 0 ? bins[j].curregs :
		    strcmp(field, "curslabs") == 0 ? bins[j].curslabs : 0;
		return put(oldp, oldlenp, &v, sizeof(v));
	}
	return ENOENT;
}

/* ---- a /proc of the test's own -------------------------------------------- */

static char root[512], proc[600], cg[600];

static void
mkdirs(const char *fmt, ...)
{
	char path[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	mkdir(path, 0700);
}

static void
write_file(const char *text, const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

/* One mapping of smaps: the header line and its Rss. */
static void
map(FILE *f, const char *range, const char *perms, unsigned long inode,
    const char *path, unsigned rss_kb)
{
	fprintf(f, "%s %s 00000000 %s %lu%s%s\nSize: %u kB\nRss: %u kB\nPss: %u kB\n"
	    "Swap: 0 kB\nVmFlags: rd wr mr mw me ac\n", range, perms,
	    inode ? "08:01" : "00:00", inode, path ? "                    " : "",
	    path ? path : "", rss_kb, rss_kb, rss_kb);
}

/* The test's fixture process: 1200 kB of code, 5000 kB of a data file,
 * 2048 kB of [heap], anon_mib MiB of anonymous memory, 132 kB of stack,
 * 8 kB of vdso; the cgroup 0::/svc at 900 of 1000 MiB. */
static uint64_t
fixture(unsigned anon_mib)
{
	char path[1024];
	FILE *f;

	mkdirs("%s/%ld/task/%ld", proc, (long)getpid(), (long)getpid());
	snprintf(path, sizeof(path), "%s/%ld/smaps", proc, (long)getpid());
	if ((f = fopen(path, "w")) == NULL) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	map(f, "55d000000000-55d000100000", "r-xp", 1234, "/usr/bin/prog", 1000);
	map(f, "55d000100000-55d000200000", "r--p", 1234, "/usr/bin/prog", 200);
	map(f, "55d001000000-55d001800000", "r--p", 777, "/var/data/file.db", 5000);
	map(f, "55d002000000-55d002200000", "rw-p", 0, "[heap]", 2048);
	map(f, "7f0000000000-7f0080000000", "rw-p", 0, NULL, anon_mib * 1024);
	map(f, "7ffd00000000-7ffd00021000", "rw-p", 0, "[stack]", 132);
	map(f, "7ffd10000000-7ffd10002000", "r-xp", 0, "[vdso]", 8);
	fclose(f);
	write_file("Name:\tprog\nVmRSS:\t   1 kB\n", "%s/%ld/status", proc, (long)getpid());
	write_file("0::/svc\n", "%s/%ld/cgroup", proc, (long)getpid());
	write_file("running\n", "%s/%ld/task/%ld/syscall", proc, (long)getpid(),
	    (long)getpid());
	mkdirs("%s/svc", cg);
	write_file("943718400\n", "%s/svc/memory.current", cg);
	write_file("1048576000\n", "%s/svc/memory.max", cg);
	write_file("anon 800000000\nfile 100000000\n", "%s/svc/memory.stat", cg);
	return (1000 + 200 + 5000 + 2048 + (uint64_t)anon_mib * 1024 + 132 + 8) * 1024;
}

static char *
as_json(const ying_memory *m)
{
	ying_membuf mb = YING_MEMBUF_INIT;

	if (ying_memory_write_json(m, ying_write_membuf, &mb) != 0)
		return NULL;
	return mb.data;
}

static char *
as_text(const ying_memory *m, int compact)
{
	ying_membuf mb = YING_MEMBUF_INIT;

	if (ying_memory_write_text(m, compact, ying_write_membuf, &mb) != 0)
		return NULL;
	return mb.data;
}

/* The bytes of part key in a JSON breakdown (a test-side reading). */
static uint64_t
part(const char *js, const char *key)
{
	char pat[96];
	const char *p, *b;

	snprintf(pat, sizeof(pat), "{\"key\":\"%s\",", key);
	if (js == NULL || (p = strstr(js, pat)) == NULL || (b = strstr(p, "\"bytes\":")) == NULL)
		return UINT64_MAX;
	return strtoull(b + 8, NULL, 10);
}

static uint64_t
sum_parts(const char *js)
{
	static const char *const keys[] = {
		"jemalloc.live", "jemalloc.tcache", "jemalloc.fragmentation",
		"jemalloc.dirty", "jemalloc.muzzy", "jemalloc.metadata", "glibc.heap",
		"stacks.main", "stacks.threads", "files.code", "files.data", "shmem",
		"kernel", "anon.other"
	};
	uint64_t s = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t v = part(js, keys[i]);
		if (v == UINT64_MAX)
			return UINT64_MAX;
		s += v;
	}
	return s;
}

/* glibc's mmapped chunks of this process, which the breakdown takes from
 * the anonymous memory into glibc's part. */
static uint64_t
hblkhd(void)
{
	return (uint64_t)mallinfo2().hblkhd;
}

int
main(void)
{
	ying_memory_opts mo;
	ying_memory *m = NULL;
	ying_profile *p;
	uint64_t rss, hb;
	char *js, *tx;
	int rc;

	snprintf(root, sizeof(root), "%s/ying-memory-test.XXXXXX", tap_tmpdir());
	if (mkdtemp(root) == NULL) {
		printf("Bail out! mkdtemp %s\n", root);
		return 1;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(cg, sizeof(cg), "%s/cgroup", root);

	/* ---- the test process itself, no jemalloc: the kernel's side */
	ying_memory_opts_init(&mo);
	rc = ying_memory_get(&m, &mo);
	is_int(rc, 0, "the test process's own breakdown");
	js = as_json(m);
	ok(js && ying_memory_rss(m) > 0, "... has an RSS");
	is_u64(sum_parts(js), ying_memory_rss(m), "... its parts sum to it");
	has_str(js, "\"jemalloc\":null,\"jemalloc_error\":", "... jemalloc not found, said");
	ok(part(js, "files.code") > 0 && part(js, "stacks.main") > 0,
	    "... programs and libraries, the main stack");
	free(js);
	ying_memory_free(m);
	m = NULL;

	/* ---- a known jemalloc on the fixture */
	if (ying_ctl_use(fake_mallctl) != 0) {
		printf("Bail out! ying_ctl_use: %s\n", ying_last_error());
		return 1;
	}
	fj.allocated = 60 * MiB;
	fj.tcache = 1 * MiB;
	fj.active = 80 * MiB;
	fj.pdirty = 40 * MiB / 4096;
	fj.resident = 80 * MiB + 40 * MiB + 5 * MiB;   /* metadata resident 5 MiB */
	fj.metadata = 6 * MiB;
	fj.mapped = 200 * MiB;
	fj.retained = 7 * MiB;
	rss = fixture(150);
	p = synth_new("sites", 1);
	{
		uint32_t a = synth_fn(p, 0x1000, "alloc_sixty", "a.c", 1);
		uint32_t b = synth_fn(p, 0x2000, "alloc_sixteen", "b.c", 2);
		uint32_t c = synth_fn(p, 0x3000, "alloc_big", "c.c", 3);
		uint32_t d = synth_fn(p, 0x4000, "alloc_sixty_too", "d.c", 4);
		synth_stack(p, &a, 1, 600, 10);     /* mean 60: the 64-byte class */
		synth_stack(p, &b, 1, 160, 10);     /* mean 16 */
		synth_stack(p, &c, 1, 700000, 10);  /* mean 70000: no small class */
		synth_stack(p, &d, 1, 250, 5);      /* mean 50: the 64-byte class */
	}
	ying_memory_opts_init(&mo);
	mo.proc_root = proc;
	mo.cgroup_root = cg;
	mo.profile = p;
	hb = hblkhd();
	rc = ying_memory_get(&m, &mo);
	is_int(rc, 0, "the fixture's breakdown");
	js = as_json(m);
	is_u64(ying_memory_rss(m), rss, "rss: the sum of smaps' Rss");
	is_u64(sum_parts(js), rss, "the parts sum to it");
	is_u64(part(js, "files.code"), 1200 * 1024, "files.code: both mappings of /usr/bin/prog");
	is_u64(part(js, "files.data"), 5000 * 1024, "files.data: the data file");
	is_u64(part(js, "stacks.main"), 132 * 1024, "stacks.main: [stack]");
	is_u64(part(js, "kernel"), 8 * 1024, "kernel: [vdso]");
	is_u64(part(js, "glibc.heap"), 2048 * 1024 + hb, "glibc.heap: [heap] and mallinfo2's hblkhd");
	is_u64(part(js, "jemalloc.live"), 59 * MiB, "jemalloc.live: allocated less tcache");
	is_u64(part(js, "jemalloc.tcache"), 1 * MiB, "jemalloc.tcache");
	is_u64(part(js, "jemalloc.fragmentation"), 20 * MiB, "jemalloc.fragmentation: active - allocated");
	is_u64(part(js, "jemalloc.dirty"), 40 * MiB, "jemalloc.dirty: pdirty pages");
	is_u64(part(js, "jemalloc.metadata"), 5 * MiB, "jemalloc.metadata: resident - active - dirty");
	is_u64(part(js, "anon.other"), 150 * MiB - 125 * MiB - hb, "anon.other: what is left");
	has_str(js, "{\"key\":\"jemalloc.retained\",\"name\":\"retained (mapped, not resident)\","
	    "\"bytes\":7340032}", "retained listed apart");
	has_str(js, "{\"key\":\"jemalloc.not_resident\",\"name\":\"counted by jemalloc, not "
	    "resident\",\"bytes\":0}", "nothing counted but not resident");
	has_str(js, "\"resident_split\":\"exact\"", "no split needed");
	has_str(js, "\"classes\":[{\"size\":64,\"slab_bytes\":8192,\"used_bytes\":640,"
	    "\"free_bytes\":7552,\"free_pct\":92.2,\"sites\":[{\"name\":\"alloc_sixty\","
	    "\"bytes\":600,\"estimate\":true},{\"name\":\"alloc_sixty_too\",\"bytes\":250,"
	    "\"estimate\":true}]},{\"size\":16,", "the 64-byte class first, its sites by bytes");
	has_str(js, "{\"size\":16,\"slab_bytes\":4096,\"used_bytes\":1600,\"free_bytes\":2496,"
	    "\"free_pct\":60.9,\"sites\":[{\"name\":\"alloc_sixteen\"", "the 16-byte class");
	has_str(js, "{\"size\":256,\"slab_bytes\":4096,\"used_bytes\":4096,\"free_bytes\":0,"
	    "\"free_pct\":0.0,\"sites\":[]}", "a full class has no free bytes, and no stack of its size");
	ok(js && strstr(js, "alloc_big") == NULL, "a stack above the small classes is in none");
	has_str(js, "\"profiled\":701010}", "the live heap as profiled (the profile's total)");
	has_str(js, "\"cgroup\":{\"version\":2,\"path\":\"/svc\",\"usage\":943718400,"
	    "\"limit\":1048576000,\"anon\":800000000,\"file\":100000000}", "the cgroup v2");
	has_str(js, "{\"part\":\"cgroup\",\"text\":\"the cgroup /svc uses 900.0 MiB of its "
	    "1000.0 MiB limit (90 %): the OOM killer acts at the limit\"}",
	    "advice: the cgroup near its limit");
	has_str(js, "{\"part\":\"jemalloc.dirty\",\"text\":\"40.0 MiB of dirty pages (25 % of RSS) "
	    "and background_thread off: start with background_thread:true or lower "
	    "dirty_decay_ms (now 10000 ms)\"}", "advice: the dirty pages, with the fix");
	has_str(js, "{\"part\":\"jemalloc.fragmentation\",\"text\":\"fragmentation 92 % of the "
	    "64-byte class", "advice: fragmentation names the class");
	tx = as_text(m, 0);
	has_str(tx, "memory of pid ", "text: the title");
	has_str(tx, "  jemalloc  live heap                  59.0 MiB   37.3 %   (profiled: 684.6 KiB)\n",
	    "text: the live heap with its share and the profiled estimate");
	has_str(tx, "  total                               158.2 MiB  100.0 %\n", "text: the total");
	has_str(tx, "      64 B    7.38 KiB free of   8.00 KiB (92.2 %)  held by alloc_sixty 600 B, alloc_sixty_too 250 B\n", "text: the classes with their sites");
	has_str(tx, "largest files:\n", "text: the files");
	has_str(tx, "advice:\n  - the cgroup /svc", "text: the advice");
	free(tx);
	tx = as_text(m, 1);
	ok(tx && strstr(tx, "kernel (vdso") == NULL && strstr(tx, "dirty pages") != NULL,
	    "compact text: the parts under 1 % left out");
	free(tx);
	free(js);
	ying_memory_free(m);
	m = NULL;

	/* ---- jemalloc counts more than is resident */
	rss = fixture(50);
	hb = hblkhd();
	rc = ying_memory_get(&m, &mo);
	is_int(rc, 0, "a fixture with less anonymous memory than jemalloc counts");
	js = as_json(m);
	is_u64(sum_parts(js), rss, "the parts still sum to rss");
	{
		/* 50 MiB - hblkhd anonymous: metadata 5, tcache 1, dirty 40 first,
		 * the rest split between live (59) and fragmentation (20) */
		uint64_t r = 50 * MiB - hb - 46 * MiB;
		uint64_t fr = (uint64_t)((double)r * 20.0 / 79.0);
		is_u64(part(js, "jemalloc.fragmentation"), fr, "the resident rest split in proportion ...");
		is_u64(part(js, "jemalloc.live"), r - fr, "... between fragmentation and the live heap");
		has_str(js, "\"resident_split\":\"proportional\"", "... flagged");
	}
	is_u64(part(js, "anon.other"), 0, "... nothing is left over ...");
	{
		char want[160];
		snprintf(want, sizeof(want), "{\"key\":\"jemalloc.not_resident\",\"name\":"
		    "\"counted by jemalloc, not resident\",\"bytes\":%" PRIu64 "}",
		    125 * MiB - (50 * MiB - hb));
		has_str(js, want, "... and is listed apart");
	}
	free(js);
	ying_memory_free(m);
	m = NULL;

	/* ---- bad options and input */
	ying_memory_opts_init(&mo);
	mo.version = 99;
	is_int(ying_memory_get(&m, &mo), YING_EINVAL, "a wrong opts version: YING_EINVAL");
	has_str(ying_last_error(), "ying_memory_opts: version 99", "... named");
	ying_memory_opts_init(&mo);
	mo.pid = 2147483000;
	mo.proc_root = proc;
	rc = ying_memory_get(&m, &mo);
	ok(rc != 0 && m == NULL, "a pid with no smaps: an error, nothing returned");
	has_str(ying_last_error(), "/2147483000/smaps", "... naming the file");
	write_file("garbage\x01\x02 not smaps\n", "%s/%ld/smaps", proc, (long)getpid());
	ying_memory_opts_init(&mo);
	mo.proc_root = proc;
	mo.cgroup_root = cg;
	rc = ying_memory_get(&m, &mo);
	ok(rc != 0 && m == NULL, "a garbage smaps: an error, no crash");
	ok(ying_memory_write_json(NULL, ying_write_membuf, NULL) == YING_EINVAL &&
	    ying_memory_write_text(NULL, 0, ying_write_membuf, NULL) == YING_EINVAL,
	    "writers refuse NULL");
	ying_memory_free(NULL);
	ying_profile_free(p);
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", root);
	}
	return tap_done();
}

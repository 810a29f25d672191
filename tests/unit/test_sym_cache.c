/*
 * test_sym_cache.c: the persistent symbol cache (src/lib/sym_cache.c)
 * against a real jemalloc dump of tests/programs/sym_prog.
 *
 * Every run symbolizes the dump with a fresh symbolizer (nothing kept in
 * memory between runs) and writes the JSON top table (names, files,
 * lines).  A run served by the cache leaves sym_prog's module without
 * DWARF or symbol table opened (has_dwarf stays -1, syms_loaded false),
 * which is how the test tells a hit from a miss.  The cache file is then
 * damaged or doctored: a doctored file that passes every check is trusted
 * (its renamed function shows up), and the same file with another build
 * ID, file identity, debug identity or resolver identity in its header is
 * not, nor once the program's file changed (a new mtime and ctime).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "internal.h"
#include "sym_int.h"
#include "tap.h"

static char prog[1024], tmpdir[256], dump[512], cache[1024];

static void
bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

typedef struct run {
	char *out;          /* JSON top table, malloc'd */
	int rc;
	int has_dwarf;      /* of sym_prog's module after the run */
	bool syms_loaded;
} run;

/* Symbolize the dump with a fresh symbolizer; the top table in r->out. */
static run
top(void)
{
	ying_top_opts to = YING_TOP_OPTS_INIT;
	ying_symbolize_opts so = YING_SYMBOLIZE_OPTS_INIT;
	ying_symbolizer *s = NULL;
	ying_profile *p = NULL;
	run r = { NULL, 0, -2, false };
	size_t len = 0;
	FILE *w;

	if (ying_profile_read_file(&p, dump) != 0 || ying_symbolizer_new(&s) != 0)
		bail("cannot read the dump");
	if ((w = open_memstream(&r.out, &len)) == NULL)
		bail("open_memstream");
	so.warnings = w;
	r.rc = ying_profile_symbolize(p, s, &so);
	to.json = 1;
	if (r.rc == 0)
		r.rc = ying_profile_write_top(p, &to, ying_write_file, w);
	fclose(w);
	for (sym_file *f = s->head; f; f = f->next) {
		if (strcmp(f->path, prog) == 0) {
			r.has_dwarf = f->has_dwarf;
			r.syms_loaded = f->syms_loaded;
		}
	}
	ying_symbolizer_free(s);
	ying_profile_free(p);
	return r;
}

/* The resolver identity of this binary: the middle of the name of the file
 * a cold run writes for sym_prog (computed once, from a fresh directory). */
static uint64_t
self_identity(void)
{
	static uint64_t id;
	static bool known;
	char cmd[2048], hex[64];
	FILE *f;

	if (known)
		return id;
	snprintf(cmd, sizeof(cmd), "ls '%s' | sed -n 's/^[0-9a-f]*\\.\\([0-9a-f]\\{16\\}\\)\\.sym$/\\1/p' | "
	    "sort -u", cache);
	if ((f = popen(cmd, "r")) == NULL || fgets(hex, sizeof(hex), f) == NULL)
		bail("no cache file written");
	pclose(f);
	id = strtoull(hex, NULL, 16);
	known = true;
	return id;
}

static char *
cache_file(void)
{
	static char path[2048];
	char cmd[2048], bid[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", prog);
	if ((f = popen(cmd, "r")) == NULL || fgets(bid, sizeof(bid), f) == NULL)
		bail("readelf -n");
	pclose(f);
	bid[strcspn(bid, "\n")] = '\0';
	/* <build-id>.<resolver identity>.sym: the one this binary writes */
	snprintf(path, sizeof(path), "%s/%s.%016" PRIx64 ".sym", cache, bid, self_identity());
	return path;
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	return (unsigned char *)tap_slurp(path, len);
}

static void
spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		bail(path);
}

static int
count_files(const char *dir)
{
	return tap_count_dir(dir);
}

/* One run: the output must be want; hit: served from the cache (nothing
 * heavy opened), else the cache file is ignored (DWARF opened again). */
static void
expect_run(const char *want, const char *what, bool hit)
{
	char msg[256];
	run r = top();

	snprintf(msg, sizeof(msg), "%s: %s", what, hit ? "same output" :
	    "ignored, output unchanged");
	is_str(r.out, want, msg);
	snprintf(msg, sizeof(msg), "%s: %s", what, hit ?
	    "served from the cache (no DWARF, no symbol table)" :
	    "resolved from DWARF again, no error");
	ok(r.rc == 0 && (hit ? r.has_dwarf == -1 && !r.syms_loaded : r.has_dwarf == 1), msg);
	free(r.out);
}
#define expect_hit(want, what) expect_run(want, what, true)
#define expect_miss(want, what) expect_run(want, what, false)

/* Rename "sym_leaf_alloc" to "SYM_leaf_alloc" in the strings of a good
 * cache file and fix its checksum: a file every check accepts. */
static unsigned char *
doctored(const unsigned char *good, size_t len)
{
	unsigned char *b = malloc(len);
	sym_cache_hdr h;
	unsigned char *q;

	if (b == NULL)
		bail("malloc");
	memcpy(b, good, len);
	memcpy(&h, b, sizeof(h));
	q = memmem(b + sizeof(h), len - sizeof(h), "sym_leaf_alloc", 15);
	if (q == NULL)
		bail("sym_leaf_alloc not in the cache file");
	memcpy(q, "SYM", 3);
	h.checksum = yi_hash_bytes(b + sizeof(h), len - sizeof(h), 0x79696e67);
	memcpy(b, &h, sizeof(h));
	return b;
}

static void
test_file(void)
{
	const char *cf;
	unsigned char *good, *bad;
	size_t len;
	sym_cache_hdr h;
	run cold, off;
	struct stat st;

	setenv("YING_CACHE_DIR", "off", 1);
	off = top();
	ok(off.rc == 0 && off.out && strstr(off.out, "sym_leaf_alloc"), "YING_CACHE_DIR=off symbolizes");

	setenv("YING_CACHE_DIR", cache, 1);
	cold = top();
	is_str(cold.out, off.out, "cold run: output identical to the cache off");
	ok(cold.has_dwarf == 1, "cold run: resolved from DWARF");
	cf = cache_file();
	ok(stat(cf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	    "cold run: <build-id>.sym written, mode 0600");
	ok(stat(cache, &st) == 0 && (st.st_mode & 0777) == 0700, "cache directory created 0700");
	expect_hit(off.out, "warm run");

	good = slurp(cf, &len);
	memcpy(&h, good, sizeof(h));
	ok(h.nresults > 0 && h.nframes > 0, "the file holds results and frames");

	/* one flipped byte anywhere in the payload */
	bad = malloc(len);
	memcpy(bad, good, len);
	bad[sizeof(h) + (len - sizeof(h)) / 2] ^= 0x40;
	spit(cf, bad, len);
	expect_miss(off.out, "one flipped byte");
	expect_hit(off.out, "replaced by the next save");

	spit(cf, good, len / 2);
	expect_miss(off.out, "truncated file");
	spit(cf, good, sizeof(h) - 1);
	expect_miss(off.out, "shorter than a header");

	/* counts that point outside the file */
	memcpy(bad, good, len);
	memcpy(&h, bad, sizeof(h));
	h.nframes = UINT32_MAX;
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	expect_miss(off.out, "frame count beyond the file");

	/* a doctored file that passes every check is believed ... */
	free(bad);
	bad = doctored(good, len);
	spit(cf, bad, len);
	{
		run r = top();
		ok(r.out && strstr(r.out, "SYM_leaf_alloc") != NULL && r.has_dwarf == -1,
		    "a file that passes every check is used (the test can see a hit)");
		free(r.out);
	}
	/* ... but not with another build ID, debug identity, or resolver */
	memcpy(&h, bad, sizeof(h));
	h.bid[0] = h.bid[0] == 'a' ? 'b' : 'a';
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	expect_miss(off.out, "header with another build ID");
	h.bid[0] = good[offsetof(sym_cache_hdr, bid)];
	h.debug_id ^= 1;
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	expect_miss(off.out, "header with another debug identity");
	h.debug_id ^= 1;
	h.self_id ^= 1;
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	expect_miss(off.out, "header with another resolver identity");
	h.self_id ^= 1;
	h.file_id ^= 1;
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	expect_miss(off.out, "header with another file identity (not the file it came from)");
	/* the doctored file, whole, but the program file was changed since
	 * (its times: what a copy or a rewrite in place would change) */
	h.file_id ^= 1;
	memcpy(bad, &h, sizeof(h));
	spit(cf, bad, len);
	{
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
		struct stat pst;
		run r;
		if (stat(prog, &pst) != 0 || utimensat(AT_FDCWD, prog, ts, 0) != 0)
			bail("utimensat on sym_prog");
		r = top();
		ok(r.out && strstr(r.out, "SYM_leaf_alloc") == NULL && r.rc == 0 &&
		    r.has_dwarf == 1, "the program's file changed since: the entry is a miss");
		free(r.out);
		ts[1] = pst.st_mtim;
		if (utimensat(AT_FDCWD, prog, ts, 0) != 0)
			bail("utimensat on sym_prog");
	}

	/* a symlink is not followed */
	{
		char other[600];
		unsigned char *d = doctored(good, len);
		snprintf(other, sizeof(other), "%s/elsewhere.bin", tmpdir);
		spit(other, d, len);
		free(d);
		unlink(cf);
		if (symlink(other, cf) != 0)
			bail("symlink");
		run r = top();
		ok(r.out && strstr(r.out, "SYM_leaf_alloc") == NULL && r.rc == 0,
		    "a cache file that is a symlink is not read");
		free(r.out);
		unlink(cf);
	}
	free(bad);
	free(good);
	free(off.out);
	free(cold.out);
}

/* Directories that must not be used: no error, output unchanged, nothing
 * written there. */
static void
test_dirs(void)
{
	char dir[700], msg[256];
	const char *bad[3] = { "group-writable", "owned by another user", "under a regular file" };
	run base, r;

	setenv("YING_CACHE_DIR", "off", 1);
	base = top();
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof(dir), "%s/dir%d", tmpdir, i);
		if (i == 2) {
			spit(dir, "x", 1);
			strcat(dir, "/cache");
		} else if (mkdir(dir, 0700) != 0) {
			bail("mkdir");
		}
		if (i == 0 && chmod(dir, 0770) != 0)
			bail("chmod");
		if (i == 1 && chown(dir, 65534, 65534) != 0)
			bail("chown (the test runs as root or as the owner)");
		setenv("YING_CACHE_DIR", dir, 1);
		r = top();
		snprintf(msg, sizeof(msg), "cache directory %s: no error, output unchanged", bad[i]);
		ok(r.rc == 0 && r.out && base.out && strcmp(r.out, base.out) == 0, msg);
		snprintf(msg, sizeof(msg), "cache directory %s: not used", bad[i]);
		ok(i == 2 ? access(dir, F_OK) != 0 : count_files(dir) == 0, msg);
		free(r.out);
	}
	/* XDG_CACHE_HOME/ying when YING_CACHE_DIR is unset */
	unsetenv("YING_CACHE_DIR");
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	setenv("XDG_CACHE_HOME", dir, 1);
	r = top();
	strcat(dir, "/ying");
	ok(r.rc == 0 && count_files(dir) >= 1, "YING_CACHE_DIR unset: $XDG_CACHE_HOME/ying is used");
	free(r.out);
	free(base.out);
}

/* The size bound removes the least recently used files. */
static void
test_evict(void)
{
	char dir[600], a[700], b[700], maxs[64], big[1000];
	struct timespec ts[2];
	struct stat st;
	long long total = 0;
	run r;

	snprintf(dir, sizeof(dir), "%s/evict", tmpdir);
	snprintf(cache, sizeof(cache), "%s", dir);
	setenv("YING_CACHE_DIR", dir, 1);
	r = top();
	free(r.out);
	/* every file the run saved (sym_prog, libc, jemalloc...) */
	{
		char cmd[1024];
		FILE *f;
		snprintf(cmd, sizeof(cmd), "cat '%s'/*.sym | wc -c", dir);
		if ((f = popen(cmd, "r")) == NULL || fscanf(f, "%lld", &total) != 1)
			bail("wc -c");
		pclose(f);
	}
	if (stat(cache_file(), &st) != 0)
		bail("no cache file");
	unlink(cache_file());       /* so that the next run saves again */
	memset(big, 'x', sizeof(big));
	snprintf(a, sizeof(a), "%s/aaaa.sym", dir);
	snprintf(b, sizeof(b), "%s/bbbb.sym", dir);
	spit(a, big, sizeof(big));
	spit(b, big, sizeof(big));
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, a, ts, 0);          /* a: least recently used */
	ts[0].tv_sec = ts[1].tv_sec = 1000001000;
	utimensat(AT_FDCWD, b, ts, 0);
	snprintf(maxs, sizeof(maxs), "%lld", total + 1500);
	setenv("YING_CACHE_MAX", maxs, 1);
	r = top();
	free(r.out);
	ok(access(a, F_OK) != 0, "over YING_CACHE_MAX: the least recently used file is removed");
	ok(access(b, F_OK) == 0, "the next one fits and stays");
	ok(access(cache_file(), F_OK) == 0, "the file just saved stays");
	unsetenv("YING_CACHE_MAX");
}

int
main(void)
{
	const char *bd = getenv("YING_BUILDDIR");
	char cmd[4096];

	snprintf(prog, sizeof(prog), "%s/tests/programs/sym_prog", bd ? bd : ".");
	snprintf(tmpdir, sizeof(tmpdir), "%s/ying-symcache.XXXXXX", tap_tmpdir());
	if (mkdtemp(tmpdir) == NULL)
		bail("mkdtemp");
	snprintf(dump, sizeof(dump), "%s/main.heap", tmpdir);
	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	snprintf(cmd, sizeof(cmd), "MALLOC_CONF=prof:true,lg_prof_sample:0,prof_prefix:%s/jeprof "
	    "'%s' '%s'", tmpdir, prog, dump);
	is_int(system(cmd), 0, "run sym_prog under MALLOC_CONF=prof:true");

	test_file();
	test_dirs();
	test_evict();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}

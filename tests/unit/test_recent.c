/*
 * test_recent.c: the recent-allocation reader (read_json.c, read_recent.c)
 * and the lifetimes writer (write_lifetimes.c).
 *
 * The three input forms in jemalloc 5.3's own shapes (as its
 * experimental.prof_recent.alloc_dump and prof.log_stop write them), ying's
 * capture wrapper with maps and both clocks; then bad input: every prefix
 * of a capture, garbage, numbers past 64 bits, nesting past the bound,
 * indices out of range, each a YING_EPARSE naming where, never a crash.
 */
#include <inttypes.h>

#include "internal.h"
#include "tap.h"

static const char raw_json[] =
    "{\"sample_interval\":1,\"recent_alloc_max\":3,\"recent_alloc\":["
    "{\"size\":104,\"usize\":112,\"released\":true,\"alloc_thread_uid\":0,"
    "\"alloc_thread_name\":\"my thread\",\"alloc_time\":1000000,"
    "\"alloc_trace\":[\"0x401000\",\"0x402000\"],\"dalloc_thread_uid\":1,"
    "\"dalloc_time\":1500000,\"dalloc_trace\":[\"0x403000\"]},"
    "{\"size\":504,\"usize\":512,\"released\":false,\"alloc_thread_uid\":2,"
    "\"alloc_time\":2000000,\"alloc_trace\":[\"0x401000\",\"0x402000\"]},"
    "{\"size\":9000,\"usize\":12288,\"released\":true,\"alloc_thread_uid\":0,"
    "\"alloc_time\":3000000,\"alloc_trace\":[\"0x404000\"],\"dalloc_thread_uid\":0,"
    "\"dalloc_time\":2003000000,\"dalloc_trace\":[]}]}";

static const char log_json[] =
    "{\"info\":{\"duration\":5,\"version\":\"5.3.0\",\"lg_sample_rate\":4,"
    "\"prof_time_resolution\":\"high\",\"pid\":42},"
    "\"threads\":[{\"thr_uid\":7,\"thr_name\":\"w\\u00e9rker\"},{\"thr_uid\":9}],"
    "\"stack_traces\":[[\"0x10\",\"0x20\"],[\"0x30\"]],"
    "\"allocations\":[{\"alloc_thread\":0,\"free_thread\":1,\"alloc_trace\":0,"
    "\"free_trace\":1,\"alloc_timestamp\":1700000000000000000,"
    "\"free_timestamp\":1700000000005000000,\"usize\":48}]}";

static char *
capture(const char *maps, const char *raw)
{
	static char buf[8192];
	snprintf(buf, sizeof(buf), "{\"ying_recent\":1,\"pid\":1234,\"program\":"
	    "\"/usr/bin/prog\",\"time_resolution\":\"default\",\"clock\":"
	    "\"CLOCK_MONOTONIC_COARSE\",\"captured_prof_ns\":3000000000,"
	    "\"captured_wall_ns\":1700000000000000000,\"maps\":\"%s\","
	    "\"jemalloc\":%s}", maps, raw);
	return buf;
}

static ying_recent *
rd(const char *s, int *rc)
{
	ying_recent *r = NULL;
	*rc = ying_recent_read_mem(&r, s, strlen(s), "t.json");
	return r;
}

static void
expect_error(const char *input, const char *part, const char *what)
{
	int rc;
	ying_recent *r = rd(input, &rc);
	char buf[256];

	snprintf(buf, sizeof(buf), "%s: YING_EPARSE", what);
	ok(rc == YING_EPARSE && r == NULL, buf);
	snprintf(buf, sizeof(buf), "%s: message names it", what);
	has_str(ying_last_error(), part, buf);
	ying_recent_free(r);
}

static void
test_raw(void)
{
	ying_recent_record rec;
	ying_recent_info in;
	ying_profile *p;
	int rc;
	ying_recent *r = rd(raw_json, &rc);

	is_int(rc, 0, "raw: reads");
	if (r == NULL)
		return;
	ying_recent_info_get(&in, r);
	is_int(in.format, YING_RECENT_RAW, "raw: format");
	is_u64(in.sample_interval, 1, "raw: sample interval");
	is_int(in.recent_alloc_max, 3, "raw: alloc max");
	is_int(in.has_wall, 0, "raw: no wall clock");
	is_int(in.has_maps, 0, "raw: no maps");
	is_int(ying_recent_count(r), 3, "raw: 3 records");
	p = ying_recent_profile(r);
	/* traces: [401000 402000], [403000], [404000], [] */
	is_int(ying_profile_nstacks(p), 4, "raw: one stack per distinct trace");
	ying_recent_get(&rec, r, 0);
	is_u64(rec.size, 104, "raw: size");
	is_u64(rec.usize, 112, "raw: usize");
	is_int(rec.released, 1, "raw: released");
	is_str(rec.alloc_thread_name, "my thread", "raw: thread name");
	is_u64(rec.free_thread, 1, "raw: free thread");
	is_str(rec.free_thread_name, "", "raw: unnamed free thread");
	is_u64(rec.alloc_ns, 1000000, "raw: alloc time");
	is_u64(rec.free_ns, 1500000, "raw: free time");
	is_int(rec.alloc_stack, 0, "raw: alloc stack");
	is_int(rec.free_stack, 1, "raw: free stack");
	ying_recent_get(&rec, r, 1);
	is_int(rec.alloc_stack, 0, "raw: same trace, same stack");
	is_int(rec.free_stack, -1, "raw: live record has no free stack");
	is_u64(rec.free_ns, 0, "raw: live record has no free time");
	ying_recent_get(&rec, r, 2);
	is_int(rec.free_stack, 3, "raw: empty free trace is a stack");
	/* stack counts: inuse = live records, alloc = all */
	is_u64(p->stacks.v[0].raw.objs, 1, "raw: stack 0 live objects");
	is_u64(p->stacks.v[0].raw.bytes, 512, "raw: stack 0 live bytes");
	is_u64(p->stacks.v[0].raw.acc_objs, 2, "raw: stack 0 allocated objects");
	is_u64(p->stacks.v[1].raw.acc_objs, 0, "raw: free-only stack counts nothing");
	ok(p->stacks.v[0].nframes == 2, "raw: stack 0 has 2 frames");
	ok(ying_recent_get(&rec, r, 3) == YING_EINVAL, "raw: record out of range");
	ying_recent_free(r);
}

static void
test_capture(void)
{
	ying_recent_record rec;
	ying_recent_info in;
	ying_profile *p;
	int rc;
	ying_recent *r = rd(capture("00400000-00410000 r-xp 00000000 08:01 99 /usr/bin/prog\\n"
	    "7f0000000000-7f0000100000 r-xp 00000000 08:01 98 /usr/lib/libjemalloc.so.2\\n",
	    raw_json), &rc);
	ying_membuf b = YING_MEMBUF_INIT;

	is_int(rc, 0, "capture: reads");
	if (r == NULL) {
		printf("# %s\n", ying_last_error());
		return;
	}
	ying_recent_info_get(&in, r);
	is_int(in.format, YING_RECENT_CAPTURE, "capture: format");
	is_int(in.pid, 1234, "capture: pid");
	is_str(in.program, "/usr/bin/prog", "capture: program");
	is_str(in.time_resolution, "default", "capture: time resolution");
	is_int(in.has_wall, 1, "capture: wall clock");
	is_int(in.has_maps, 1, "capture: maps");
	p = ying_recent_profile(r);
	is_int(p->maps.n, 2, "capture: both mappings");
	is_str(ying_profile_program(p), "/usr/bin/prog", "capture: main mapping");
	ying_recent_get(&rec, r, 0);
	/* wall = 1.7e18 - (3e9 - 1e6) */
	is_int(rec.alloc_wall_ns, 1700000000000000000LL - 3000000000LL + 1000000LL,
	    "capture: alloc time on the wall clock");
	is_int(rec.free_wall_ns, 1700000000000000000LL - 3000000000LL + 1500000LL,
	    "capture: free time on the wall clock");
	/* lifetimes: 0.5 ms (<1ms), live, 2 s (<10s); no symbols: call sites
	 * are the leaf addresses */
	(void)ying_recent_symbolize(r, NULL, NULL);    /* writers never do */
	is_int(ying_recent_write_lifetimes(r, &(ying_lifetimes_opts){
	    YING_LIFETIMES_OPTS_VERSION, 0, 0, 1, 0, NULL }, ying_write_membuf, &b), 0,
	    "lifetimes: JSON");
	has_str(b.data, "\"records\":3,\"live\":1", "lifetimes: counts records and live ones");
	has_str(b.data, "\"count\":2,\"bytes\":624,\"counts\":[1,0,0,0,0,0,0,1]",
	    "lifetimes: site with a <1ms and a live record");
	has_str(b.data, "\"count\":1,\"bytes\":12288,\"counts\":[0,0,0,0,1,0,0,0]",
	    "lifetimes: 2 s lands in <10s");
	ok(strstr(b.data, "12288") < strstr(b.data, "624"), "lifetimes: sorted by bytes");
	ying_membuf_release(&b);
	is_int(ying_recent_write_lifetimes_svg(r, NULL, ying_write_membuf, &b), 0,
	    "lifetimes: SVG");
	has_str(b.data, "&lt;1ms", "lifetimes: SVG escapes bucket names");
	ok(strstr(b.data, "<1ms") == NULL, "lifetimes: no raw '<' in text");
	ying_membuf_release(&b);
	ying_recent_free(r);
}

static void
test_log(void)
{
	ying_recent_record rec;
	ying_recent_info in;
	int rc;
	ying_recent *r = rd(log_json, &rc);

	is_int(rc, 0, "log: reads");
	if (r == NULL)
		return;
	ying_recent_info_get(&in, r);
	is_int(in.format, YING_RECENT_LOG, "log: format");
	is_int(in.pid, 42, "log: pid");
	is_u64(in.sample_interval, 16, "log: 2^lg_sample_rate");
	is_int(in.has_wall, 1, "log: high resolution is wall clock");
	is_int(ying_recent_count(r), 1, "log: 1 record");
	ying_recent_get(&rec, r, 0);
	is_u64(rec.alloc_thread, 7, "log: alloc thread uid through the index");
	is_str(rec.alloc_thread_name, "w\xc3\xa9rker", "log: \\u escape decoded");
	is_u64(rec.free_thread, 9, "log: free thread");
	is_u64(rec.size, 48, "log: size is usize");
	is_int(rec.released, 1, "log: released");
	is_int(rec.alloc_stack, 0, "log: alloc stack");
	is_int(rec.free_stack, 1, "log: free stack");
	is_int(rec.free_wall_ns, 1700000000005000000LL, "log: wall time as logged");
	ying_recent_free(r);
}

static void
test_errors(void)
{
	char *cap = strdup(capture("", raw_json)), buf[512], big[20000];
	size_t n = strlen(cap), i, bad = 0;

	for (i = 0; i < n; i++) {
		ying_recent *r = NULL;
		int rc = ying_recent_read_mem(&r, cap, i, "cut.json");
		if (rc != YING_EPARSE || r != NULL || strncmp(ying_last_error(), "cut.json:", 9) != 0)
			bad++;
		ying_recent_free(r);
	}
	is_int(bad, 0, "every prefix of a capture: YING_EPARSE naming the file");
	free(cap);
	expect_error("", "1:1: input ends", "empty input");
	expect_error("garbage", "1:1: expected a JSON value", "garbage");
	expect_error("{\n  \"recent_alloc\": [1.2.3]}", "2:23: expected ',' or ']'",
	    "a malformed number: line and column");
	expect_error("[1,2]", "not a recent-allocation capture", "not an object");
	expect_error("{\"a\":1}", "not a recent-allocation capture", "unknown object");
	expect_error("{\"recent_alloc\":[{\"size\":1}]}", "recent_alloc[0]: missing \"usize\"",
	    "missing field");
	expect_error("{\"recent_alloc\":[{\"size\":184467440737095516160,\"usize\":1}]}",
	    "recent_alloc[0].size: number 184467440737095516160 does not fit 64 bits",
	    "huge number");
	expect_error("{\"recent_alloc\":[{\"size\":-1,\"usize\":1}]}", "negative number",
	    "negative size");
	expect_error("{\"recent_alloc\":[{\"size\":1,\"usize\":1,\"alloc_thread_uid\":0,"
	    "\"alloc_time\":1,\"released\":false,\"alloc_trace\":[\"0x12345678901234567\"]}]}",
	    "longer than 64 bits", "address past 64 bits");
	expect_error("{\"recent_alloc\":[{\"size\":1,\"usize\":1,\"alloc_thread_uid\":0,"
	    "\"alloc_time\":1,\"released\":false,\"alloc_trace\":[\"main\"]}]}",
	    "not a 0x-prefixed address", "symbol instead of address");
	expect_error("{\"recent_alloc\":[{\"size\":1.5,\"usize\":1}]}", "expected an integer",
	    "fraction");
	expect_error("{\"threads\":[],\"stack_traces\":[],\"allocations\":[{\"alloc_thread\":0,"
	    "\"free_thread\":0,\"alloc_trace\":0,\"free_trace\":0,\"alloc_timestamp\":1,"
	    "\"free_timestamp\":2,\"usize\":8}]}", "allocations[0]: thread index out of range",
	    "log: thread index out of range");
	expect_error("{\"threads\":[{\"thr_uid\":1}],\"stack_traces\":[],\"allocations\":[{"
	    "\"alloc_thread\":0,\"free_thread\":0,\"alloc_trace\":5,\"free_trace\":0,"
	    "\"alloc_timestamp\":1,\"free_timestamp\":2,\"usize\":8}]}",
	    "trace index out of range", "log: trace index out of range");
	expect_error("{\"ying_recent\":2,\"jemalloc\":{\"recent_alloc\":[]}}",
	    "unsupported \"ying_recent\" version", "capture: future version");
	expect_error(capture("zzz\\n", "{\"recent_alloc\":[]}"), "\"maps\"", "capture: bad maps");
	expect_error("{\"a\":\"\\ud800\"}", "surrogate", "lone surrogate");
	expect_error("{\"a\":\"x\\q\"}", "unknown escape", "bad escape");
	expect_error("{\"a\":1} x", "unexpected text after", "trailing text");
	/* nesting past the bound, with no stack overflow */
	memset(big, '[', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_error(big, "nested more than 64 levels", "deep nesting");
	snprintf(buf, sizeof(buf), "{\"recent_alloc\":[{\"size\":1,\"usize\":1,"
	    "\"alloc_thread_uid\":0,\"alloc_time\":1,\"released\":\"yes\"}]}");
	expect_error(buf, "\"released\" is not true or false", "released not a bool");
}

static void
test_file(void)
{
	char path[4096];
	FILE *f;
	ying_recent *r = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/test_recent.%ld.json", tap_tmpdir(), (long)getpid());
	f = fopen(path, "w");
	fputs(raw_json, f);
	fclose(f);
	rc = ying_recent_read_file(&r, path);
	is_int(rc, 0, "file: reads");
	is_int(ying_recent_count(r), 3, "file: records");
	ying_recent_free(r);
	{
		/* gzipped, from memory */
		ying_membuf z = YING_MEMBUF_INIT;
		yi_gzout *g;
		yi_gzout_new(&g, ying_write_membuf, &z, 6);
		yi_gzout_write(g, raw_json, strlen(raw_json));
		yi_gzout_finish(g);
		rc = ying_recent_read_mem(&r, z.data, z.len, "z.json.gz");
		is_int(rc, 0, "gzip: reads from memory");
		is_int(ying_recent_count(r), 3, "gzip: records");
		ying_recent_free(r);
		rc = ying_recent_read_mem(&r, z.data, z.len / 2, "cut.json.gz");
		ok(rc != 0 && r == NULL, "gzip: a cut gzip stream fails");
		has_str(ying_last_error(), "cut.json.gz", "gzip: message names it");
		ying_membuf_release(&z);
	}
	unlink(path);
	rc = ying_recent_read_file(&r, path);
	is_int(rc, YING_ENOTFOUND, "file: missing file");
	has_str(ying_last_error(), path, "file: message names it");
}

/* The decode budget (YING_MAX_MEMORY) bounds the JSON tree: a capture of
 * many small values is YING_ELIMIT, not an unbounded allocation. */
static void
test_budget(void)
{
	size_t n = 20000, i;
	char *big = malloc(n * 2 + 64);
	ying_recent *r = NULL;
	int rc;

	char *e = big + sprintf(big, "{\"recent_alloc\":[");
	for (i = 0; i < n; i++)
		e += sprintf(e, i ? ",0" : "0");
	strcpy(e, "]}");
	setenv("YING_MAX_MEMORY", "64K", 1);
	rc = ying_recent_read_mem(&r, big, strlen(big), "big.json");
	is_int(rc, YING_ELIMIT, "budget: 20000 values past a 64 KiB budget");
	has_str(ying_last_error(), "YING_MAX_MEMORY", "budget: message names the fix");
	unsetenv("YING_MAX_MEMORY");
	rc = ying_recent_read_mem(&r, big, strlen(big), "big.json");
	is_int(rc, YING_EPARSE, "budget: the default budget reads it (and finds no records)");
	free(big);
}

int
main(void)
{
	test_raw();
	test_capture();
	test_log();
	test_errors();
	test_file();
	test_budget();
	return tap_done();
}

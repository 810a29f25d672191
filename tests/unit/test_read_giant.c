/*
 * test_read_giant.c: the "ying-giant/1" JSON reader (read_giant.c).
 *
 * A listing in the format live_giant.c writes is read into records and a
 * profile with one stack per call site (period 1, the site's count and
 * bytes, the listing's mappings); escapes, unknown keys and white space
 * are accepted.  Every prefix of it (a truncated file), garbage, a wrong
 * format, a record naming a missing site, bad numbers (also in keys it
 * ignores: read_json.c checks JSON's number grammar) and addresses and
 * hostile nesting fail with YING_EPARSE and a message naming
 * NAME:LINE:COLUMN, never a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../src/lib/internal.h"

static const char good[] =
    "{\"format\":\"ying-giant/1\",\"pid\":4242,\"program\":\"/x/prog\",\n"
    " \"time_ns\":1796084799666176937,\"threshold\":33554432,\n"
    " \"allocations\":4,\"dropped\":1,\"since\":0,\"future\":{\"a\":[1,2.5e3,true,null]},\n"
    " \"sites\":[\n"
    "  {\"site\":0,\"count\":3,\"bytes\":201326592,"
    "\"stack\":[\"0x7f0000001234\",\"0x400154\",\"0x400200\"],"
    "\"frames\":[{\"function\":\"giant_block_64m\",\"file\":\"p.c\",\"line\":52,\"inlined\":false}]},\n"
    "  {\"site\":1,\"count\":1,\"bytes\":41943040,\"stack\":[\"0x400300\"],\"frames\":[]}],\n"
    " \"records\":[\n"
    "  {\"seq\":7,\"time_ns\":1796084799000000001,\"size\":67108864,\"thread\":101,"
    "\"kind\":\"malloc\",\"site\":0,\"function\":\"giant_block_64m\"},\n"
    "  {\"seq\":9,\"time_ns\":1796084799000000002,\"size\":41943040,\"thread\":102,"
    "\"kind\":\"cal\\u006Coc\",\"site\":1,\"function\":\"giant_calloc\"}],\n"
    " \"maps\":\"00400000-00401000 r-xp 00000000 00:00 0 /nonexistent/giant_prog\\n"
    "7f0000000000-7f0000100000 r-xp 00000000 00:00 0 /nonexistent/libjemalloc.so.2\\n\"}\n";

static int
read_str(ying_giant **g, const char *s, size_t n)
{
	return ying_giant_read_mem(g, s, n, "g.json");
}

static void
bad(const char *json, const char *want, const char *what)
{
	ying_giant *g = (ying_giant *)1;
	int rc = read_str(&g, json, strlen(json));

	is_int(rc, YING_EPARSE, what);
	ok(g == NULL, "... and *out is NULL");
	has_str(ying_last_error(), want, "... and the message says where/what");
}

int
main(void)
{
	ying_giant *g = NULL;
	ying_giant_record r;
	ying_profile *p;
	uint64_t thr = 0, allocs = 0, dropped = 0;
	int64_t tns = 0;
	long pid = 0;
	int rc;

	rc = read_str(&g, good, strlen(good));
	is_int(rc, 0, "a well-formed listing is read");
	if (rc != 0) {
		printf("# %s\n", ying_last_error());
		return tap_done();
	}
	{
		ying_giant_info gi;
		ying_giant_info_get(&gi, g);
		thr = gi.threshold; pid = gi.pid; tns = gi.time_ns; allocs = gi.allocations; dropped = gi.dropped;
	}
	is_u64(thr, 33554432, "threshold");
	is_int(pid, 4242, "pid");
	is_int(tns, 1796084799666176937LL, "time_ns");
	is_u64(allocs, 4, "allocations");
	is_u64(dropped, 1, "dropped");
	is_int(ying_giant_count(g), 2, "two records");
	ok(ying_giant_get(&r, g, 0) == 0, "record 0");
	is_u64(r.size, 67108864, "record 0: size");
	is_u64(r.thread, 101, "record 0: thread");
	is_int(r.time_ns, 1796084799000000001LL, "record 0: time (ns)");
	is_int(r.stack, 0, "record 0: stack index (site 0)");
	is_u64(r.repeats, 3, "record 0: repeats at its call site");
	is_u64(r.seq, 7, "record 0: sequence");
	is_str(r.kind, "malloc", "record 0: kind");
	ok(ying_giant_get(&r, g, 1) == 0, "record 1");
	is_str(r.kind, "calloc", "record 1: kind with a \\u escape");
	is_int(r.stack, 1, "record 1: site 1");
	is_u64(r.repeats, 1, "record 1: repeats");
	is_int(ying_giant_get(&r, g, 2), YING_EINVAL, "no record 2: YING_EINVAL");
	p = ying_giant_profile(g);
	ok(p != NULL, "the call sites' profile");
	if (p) {
		is_int(ying_profile_nstacks(p), 2, "one stack per call site");
		is_u64(ying_profile_period(p), 1, "sample period 1 (every giant allocation)");
		is_int(p->stacks.v[0].nframes, 3, "site 0: three frames");
		is_u64(p->stacks.v[0].raw.objs, 3, "site 0: objects = count");
		is_u64(p->stacks.v[0].raw.bytes, 201326592, "site 0: bytes");
		is_u64(p->locs.v[p->frames.v[p->stacks.v[0].frame_off]].addr, 0x7f0000001234,
		    "site 0: leaf address as listed");
		is_u64(p->locs.v[p->frames.v[p->stacks.v[0].frame_off + 1]].addr, 0x400153,
		    "site 0: caller address minus one (as for a dump)");
		is_int(p->maps.n >= 2, 1, "the listing's mappings");
		is_str(ying_profile_program(p), "/nonexistent/giant_prog",
		    "the program from the mappings");
		is_int(ying_profile_time(p), 1796084799, "the profile's time from time_ns");
	}
	ying_giant_free(g);
	ying_giant_free(NULL);

	/* every strict prefix is a clear error, never a crash */
	{
		size_t n = strlen(good), fails = 0, named = 0;
		for (size_t k = 0; k < n; k++) {
			/* a prefix ending after the closing brace is complete */
			if (strspn(good + k, " \n") == n - k)
				break;
			g = NULL;
			if (read_str(&g, good, k) == YING_EPARSE && g == NULL)
				fails++;
			if (strncmp(ying_last_error(), "g.json", 6) == 0)
				named++;
			ying_giant_free(g);
		}
		is_int(fails, n - 1, "every truncation of the listing is YING_EPARSE");
		is_int(named, n - 1, "... each naming the input");
	}
	bad("", "g.json:1:1: empty input", "empty input");
	bad("garbage", "g.json:1:1: expected a JSON value", "garbage");
	bad("[1]", "g.json:1:1: expected a \"ying-giant/1\" JSON object", "an array");
	bad("{\"format\":\"ying-recent/1\",\"sites\":[],\"records\":[]}",
	    "g.json:1:11: \"format\" is not \"ying-giant/1\"", "another format");
	bad("{\"sites\":[],\"records\":[]}", "no \"format\"", "no format");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[]}", "no \"records\" array",
	    "no records");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[],\"records\":[{\"site\":0}]}",
	    "record 0 names site 0 of 0", "a record naming a missing site");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[],\"sites\":[],\"records\":[]}",
	    "g.json:1:45: second \"sites\"", "two \"sites\" arrays");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[],\"records\":[],\"records\":[]}",
	    "second \"records\"", "two \"records\" arrays");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[],\"records\":[{\"size\":1}]}",
	    "record without \"site\"", "a record without a site");
	bad("{\"format\":\"ying-giant/1\",\"threshold\":-5}",
	    "\"threshold\" is out of range", "a negative size");
	bad("{\"format\":\"ying-giant/1\",\"threshold\":99999999999999999999}",
	    "\"threshold\" is out of range", "a size over 2^64");
	bad("{\"format\":\"ying-giant/1\",\"threshold\":1.5}",
	    "expected an integer for \"threshold\"", "a fraction");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[{\"stack\":[\"400100\"]}]}",
	    "expected an address \"0x...\" in \"stack\"", "an address without 0x");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[{\"stack\":[\"0x12zz\"]}]}",
	    "expected an address", "an address with junk");
	bad("{\"format\":\"ying-giant/1\",\"sites\":[],\"records\":[]} x",
	    "g.json:1:51: unexpected text after the JSON value", "trailing data");
	bad("{\"format\":\"ying-giant/1\",\"maps\":\"a\\qb\"}", "g.json:1:36: unknown escape",
	    "a bad escape");
	bad("{\"format\":\"ying-giant/1\",\"x\":1.2.3}", "g.json:1:33: expected ',' or '}'",
	    "a malformed number in an unknown key");
	bad("{\"format\":\"ying-giant/1\",\"x\":01}", "g.json:1:31: expected ',' or '}'",
	    "a number with a leading zero");
	bad("{\"format\":\"ying-giant/1\",\"x\":1e}", "g.json:1:32: expected a digit",
	    "an exponent without digits");
	bad("{\"format\":\"ying-giant/1\",\"maps\":\"a\\ud800b\"}",
	    "g.json:1:41: lone high surrogate",
	    "a lone high surrogate");
	bad("{\"format\":\"ying-giant/1\",\"maps\":\"a\tb\"}", "control character",
	    "a raw tab in a string");
	bad("{\"format\":\"ying-giant/1\"\n,\"sites\":[] \"records\":[]}",
	    "g.json:2:13: expected ',' or '}'", "a missing comma, line and column");
	{
		/* hostile nesting in an unknown key: bounded, no deep recursion */
		size_t n = 200000;
		char *deep = malloc(n * 2 + 64);
		size_t k = (size_t)sprintf(deep, "{\"format\":\"ying-giant/1\",\"x\":");
		for (size_t i = 0; i < n; i++)
			deep[k++] = '[';
		for (size_t i = 0; i < n; i++)
			deep[k++] = ']';
		strcpy(deep + k, "}");
		bad(deep, "g.json:1:94: nested more than 64 levels deep",
		    "200000 nested arrays");
		free(deep);
	}
	is_int(ying_giant_read_file(&g, "/nonexistent/giant.json"), YING_ENOTFOUND,
	    "a missing file: YING_ENOTFOUND");
	has_str(ying_last_error(), "/nonexistent/giant.json", "... naming it");
	return tap_done();
}

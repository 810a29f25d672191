/*
 * test_read_pprof.c: the pprof reader (read_pprof.c).
 *
 * What ying writes reads back the same (period, accum, stacks, time,
 * totals, main program, every stack's frames by name and line); hand-made
 * Go-style profiles parse, and truncated, corrupt or inconsistent protobuf
 * input is YING_EPARSE with no profile (never a crash); every failed
 * allocation while reading is YING_ENOMEM.  The decode budget: empty
 * samples and profiles past YING_MAX_MEMORY are refused before anything
 * is allocated, gzip in memory stops at half the budget.  The writer's
 * side: test_write_pprof.c.
 */
#include "pprof_util.h"

/* ---- round trip: real dumps of tests/data, written then read ------------ */

static void
test_roundtrip(const char *file)
{
	ying_profile *p = NULL, *q = NULL;
	ying_membuf mb;
	char what[128];
	int rc;
	size_t i;
	double a, b;

	rc = ying_profile_read_file(&p, tap_data(file));
	snprintf(what, sizeof(what), "%s parses", file);
	is_int(rc, 0, what);
	if (p == NULL)
		return;
	rc = write_pb(p, 0, 0, 1, &mb);
	snprintf(what, sizeof(what), "%s: write pprof", file);
	is_int(rc, 0, what);

	/* the reader gives the same profile back */
	rc = ying_profile_read_mem(&q, mb.data, mb.len, "roundtrip.pb.gz");
	snprintf(what, sizeof(what), "%s: round trip parses", file);
	is_int(rc, 0, what);
	if (q) {
		is_int(q->format, YI_FMT_PPROF, "round trip: format is pprof");
		is_u64(q->period, p->period, "round trip: period");
		is_int(q->has_accum, p->has_accum, "round trip: has_accum");
		is_int(q->stacks.n, p->stacks.n, "round trip: stacks");
		is_int(q->time, p->time, "round trip: time");
		for (i = 0; i < 4; i++) {
			if (ying_profile_total(&a, p, (ying_sample_index)i) != 0)
				continue;
			ok(ying_profile_total(&b, q, (ying_sample_index)i) == 0 &&
			    fabs(a - b) <= (double)p->stacks.n + 0.5, "round trip: equal totals");
		}
		ok(q->main_map == 0 && strcmp(ying_profile_program(q), ying_profile_program(p)) == 0,
		    "round trip: main program");
		/* same frames, by name, for every stack */
		{
			yi_framevec fa = { 0 }, fb = { 0 };
			size_t bad = 0, k;
			ying_profile_symbolize(q, NULL, NULL);
			for (i = 0; i < p->stacks.n; i++) {
				long na = yi_stack_expand(p, &p->stacks.v[i], &fa);
				long nb = yi_stack_expand(q, &q->stacks.v[i], &fb);
				if (na != nb) {
					bad++;
					continue;
				}
				for (k = 0; k < (size_t)na; k++) {
					if (strcmp(yi_profile_str(p, p->funcs.v[fa.v[k].func].name),
					    yi_profile_str(q, q->funcs.v[fb.v[k].func].name)) ||
					    fa.v[k].line != fb.v[k].line)
						bad++;
				}
			}
			is_int(bad, 0, "round trip: same frames (names, lines) in every stack");
			yi_vec_free(&fa);
			yi_vec_free(&fb);
		}
		ying_profile_free(q);
		q = NULL;
	}
	ying_membuf_release(&mb);
	ying_profile_free(p);
}

/* ---- allocation failures: every one is YING_ENOMEM, no profile ---------- */

extern long yi_alloc_fail_countdown;

static void
test_oom(void)
{
	ying_profile *p = NULL, *q = NULL;
	ying_membuf plain = YING_MEMBUF_INIT;
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;
	long n, bad = 0, tries = 0;
	int rc;

	if (ying_profile_read_file(&p, tap_data("heap_accum.heap")) != 0 ||
	    ying_profile_symbolize(p, NULL, NULL) != 0) {
		ok(0, "oom: fixture");
		return;
	}
	o.gzip = 0;
	(void)ying_profile_symbolize(p, NULL, NULL);   /* writers never do */
	rc = ying_profile_write_pprof(p, &o, ying_write_membuf, &plain);
	is_int(rc, 0, "oom: plain output for the reader");
	for (n = 1, tries = bad = 0;; n++) {
		yi_alloc_fail_countdown = n;
		rc = yi_pprof_parse(&q, plain.data, plain.len, "oom");
		yi_alloc_fail_countdown = 0;
		if (rc == 0)
			break;
		tries++;
		if (rc != YING_ENOMEM || q != NULL)
			bad++;
	}
	ok(tries > 5 && bad == 0, "reader: each failed allocation gives YING_ENOMEM");
	ying_profile_free(q);
	ying_membuf_release(&plain);
	ying_profile_free(p);
}

/* ---- hand-made protobuf input ------------------------------------------- */

static int
parse_msg(PB *m, const char *name)
{
	size_t n = perftools__profiles__profile__get_packed_size(m);
	uint8_t *buf = malloc(n + 1);
	ying_profile *p = NULL;
	int rc;

	perftools__profiles__profile__pack(m, buf);
	rc = yi_pprof_parse(&p, buf, n, name);
	if (rc != 0 && p != NULL)
		rc = 99;    /* out must be NULL on failure */
	ying_profile_free(p);
	free(buf);
	return rc;
}

static void
test_handmade(void)
{
	/* A small valid Go-style heap profile, then broken variants. */
	char *strs[] = { "", "alloc_objects", "count", "alloc_space", "bytes",
		"inuse_objects", "inuse_space", "main.work", "work.go", "/bin/prog", "cpu",
		"nanoseconds", "space", "objects" };
	Perftools__Profiles__ValueType vt[4], *vtp[4];
	Perftools__Profiles__Function fn = PERFTOOLS__PROFILES__FUNCTION__INIT, *fnp = &fn;
	Perftools__Profiles__Line ln = PERFTOOLS__PROFILES__LINE__INIT, *lnp = &ln;
	Perftools__Profiles__Location loc = PERFTOOLS__PROFILES__LOCATION__INIT, *locp = &loc;
	Perftools__Profiles__Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT, *mapp = &map;
	Perftools__Profiles__Sample smp = PERFTOOLS__PROFILES__SAMPLE__INIT, *smpp = &smp;
	PB m = PERFTOOLS__PROFILES__PROFILE__INIT;
	uint64_t locids[1] = { 7 };
	int64_t vals[4] = { 10, 1000, 4, 400 };
	ying_profile *p = NULL;
	size_t n, i;
	uint8_t *buf;
	double t;
	int rc;

	for (i = 0; i < 4; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = (int64_t)(1 + 2 * i);
		vt[i].unit = i % 2 ? 4 : 2;
		vtp[i] = &vt[i];
	}
	vt[2].type = 5;  /* inuse_objects */
	vt[3].type = 6;  /* inuse_space */
	fn.id = 3; fn.name = 7; fn.system_name = 7; fn.filename = 8;
	ln.function_id = 3; ln.line = 42;
	loc.id = 7; loc.mapping_id = 1; loc.address = 0x401234; loc.n_line = 1; loc.line = &lnp;
	map.id = 1; map.memory_start = 0x400000; map.memory_limit = 0x500000; map.filename = 9;
	map.has_functions = 1;
	smp.n_location_id = 1; smp.location_id = locids; smp.n_value = 4; smp.value = vals;
	m.n_sample_type = 4; m.sample_type = vtp;
	m.n_sample = 1; m.sample = &smpp;
	m.n_mapping = 1; m.mapping = &mapp;
	m.n_location = 1; m.location = &locp;
	m.n_function = 1; m.function = &fnp;
	m.n_string_table = sizeof(strs) / sizeof(strs[0]); m.string_table = strs;
	m.period = 524288;
	m.time_nanos = 1700000000123456789LL;

	n = perftools__profiles__profile__get_packed_size(&m);
	buf = malloc(n);
	perftools__profiles__profile__pack(&m, buf);
	rc = ying_profile_read_mem(&p, buf, n, "go.pb");
	is_int(rc, 0, "Go-style heap profile parses via ying_profile_read_mem");
	if (p) {
		is_u64(p->period, 524288, "period from the profile");
		ok(p->has_accum, "alloc_* types -> has_accum");
		is_int(p->time, 1700000000, "time from time_nanos");
		ok(ying_profile_total(&t, p, YING_INUSE_SPACE) == 0 && t == 400, "inuse_space by name");
		ok(ying_profile_total(&t, p, YING_ALLOC_OBJECTS) == 0 && t == 10, "alloc_objects by name");
		ok(ying_profile_total(&t, p, YING_INUSE_OBJECTS) == 0 && t == 4, "inuse_objects by name");
		is_str(ying_profile_program(p), "/bin/prog", "mapping[0] is the program");
		ok(p->locs.n == 1 && p->locs.v[0].addr == 0x401234 && p->locs.v[0].nlines == 1,
		    "location with its line");
		is_str(yi_profile_str(p, p->funcs.v[p->lines.v[p->locs.v[0].line_off].func].name),
		    "main.work", "function name");
		is_int(p->lines.v[p->locs.v[0].line_off].line, 42, "line number");
		ying_profile_free(p);
		p = NULL;
	}
	free(buf);

	/* legacy names "space"/"objects" */
	vt[2].type = 13; vt[3].type = 12;
	m.n_sample_type = 2; m.sample_type = &vtp[2];
	smp.n_value = 2; smp.value = &vals[2];
	n = perftools__profiles__profile__get_packed_size(&m);
	buf = malloc(n);
	perftools__profiles__profile__pack(&m, buf);
	rc = yi_pprof_parse(&p, buf, n, "legacy.pb");
	is_int(rc, 0, "legacy space/objects profile parses");
	if (p) {
		ok(!p->has_accum, "no alloc_* types -> no accum");
		ok(ying_profile_total(&t, p, YING_INUSE_SPACE) == 0 && t == 400, "'space' read as inuse_space");
		ying_profile_free(p);
		p = NULL;
	}
	free(buf);
	vt[2].type = 5; vt[3].type = 6;
	m.n_sample_type = 4; m.sample_type = vtp;
	smp.n_value = 4; smp.value = vals;

	is_int(parse_msg(&m, "ok"), 0, "restored message parses");

	strs[0] = "x";
	is_int(parse_msg(&m, "s0"), YING_EPARSE, "string_table[0] != \"\" -> EPARSE");
	has_str(ying_last_error(), "string_table[0]", "message names string_table[0]");
	strs[0] = "";

	smp.n_value = 3;
	is_int(parse_msg(&m, "nval"), YING_EPARSE, "value count != sample types -> EPARSE");
	has_str(ying_last_error(), "3 values", "message gives the count");
	smp.n_value = 4;

	locids[0] = 8;
	is_int(parse_msg(&m, "locid"), YING_EPARSE, "unknown location id -> EPARSE");
	has_str(ying_last_error(), "location id 8", "message names the id");
	locids[0] = 7;

	ln.function_id = 4;
	is_int(parse_msg(&m, "fnid"), YING_EPARSE, "unknown function id -> EPARSE");
	ln.function_id = 3;

	loc.mapping_id = 2;
	is_int(parse_msg(&m, "mapid"), YING_EPARSE, "unknown mapping id -> EPARSE");
	loc.mapping_id = 1;

	loc.id = 0;
	is_int(parse_msg(&m, "loc0"), YING_EPARSE, "location id 0 -> EPARSE");
	loc.id = 7;

	fn.name = 99;
	is_int(parse_msg(&m, "stridx"), YING_EPARSE, "string index out of range -> EPARSE");
	has_str(ying_last_error(), "string 99", "message names the index");
	fn.name = 7;

	fn.filename = -1;
	is_int(parse_msg(&m, "strneg"), YING_EPARSE, "negative string index -> EPARSE");
	fn.filename = 8;

	{
		Perftools__Profiles__Location *two[2] = { &loc, &loc };
		m.n_location = 2; m.location = two;
		is_int(parse_msg(&m, "dup"), YING_EPARSE, "duplicate location id -> EPARSE");
		has_str(ying_last_error(), "used twice", "message says duplicate");
		m.n_location = 1; m.location = &locp;
	}

	vt[0].type = 10; vt[0].unit = 11;
	m.n_sample_type = 1; smp.n_value = 1;
	is_int(parse_msg(&m, "cpu"), YING_EPARSE, "CPU profile -> EPARSE");
	has_str(ying_last_error(), "cpu/nanoseconds", "message lists the types found");
	vt[0].type = 1; vt[0].unit = 2;
	m.n_sample_type = 4; smp.n_value = 4;

	m.n_string_table = 0;
	is_int(parse_msg(&m, "nostr"), YING_EPARSE, "no string table -> EPARSE");
	m.n_string_table = sizeof(strs) / sizeof(strs[0]);

	is_int(yi_pprof_parse(&p, "\x0a\xff\xff\xff\xff\x0f", 6, "junk"), YING_EPARSE,
	    "length beyond the input -> EPARSE");
	ok(p == NULL, "out is NULL on failure");
	is_int(yi_pprof_parse(&p, "", 0, "empty"), YING_EPARSE, "empty input -> EPARSE");
	is_int(yi_pprof_parse(&p, "\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 11, "varint"),
	    YING_EPARSE, "overlong varint -> EPARSE");
}

/* ---- the decode budget (issue 13, finding 5) ----------------------------- */

extern long yi_alloc_fail_countdown;

/* string_table "", "inuse_space", "bytes"; sample_type {1, 2}; then n
 * samples: empty (2 bytes) or with one value 0 (4 bytes). */
static void
bomb(ying_membuf *b, size_t n, bool with_value)
{
	static const unsigned char head[] = {
		0x32, 0x00, 0x32, 0x0b, 'i', 'n', 'u', 's', 'e', '_', 's', 'p', 'a', 'c', 'e',
		0x32, 0x05, 'b', 'y', 't', 'e', 's', 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
	};
	static const unsigned char empty[] = { 0x12, 0x00 }, one[] = { 0x12, 0x02, 0x10, 0x00 };

	memset(b, 0, sizeof(*b));
	ying_write_membuf(b, head, sizeof(head));
	for (size_t i = 0; i < n; i++)
		ying_write_membuf(b, with_value ? one : empty, with_value ? sizeof(one) : sizeof(empty));
}

static void
test_budget(void)
{
	ying_membuf b, gz = YING_MEMBUF_INIT, big = YING_MEMBUF_INIT;
	ying_profile *p = NULL;
	yi_gzout *g;
	int rc;

	/* empty samples: refused by the pre-count, before any allocation (the
	 * first allocation fails: unpacking would be ENOMEM) */
	bomb(&b, 100000, false);
	yi_alloc_fail_countdown = 1;
	rc = yi_pprof_parse(&p, b.data, b.len, "empty.pb");
	yi_alloc_fail_countdown = 0;
	is_int(rc, YING_EPARSE, "100000 empty samples: EPARSE before anything is allocated");
	is_str(ying_last_error(), "empty.pb: sample 0 has 0 values, but there are 1 sample types",
	    "... naming the first empty sample");
	ok(p == NULL, "... no profile");
	ying_membuf_release(&b);

	/* valid samples past the budget: counted, not decoded */
	bomb(&b, 100000, true);
	setenv("YING_MAX_MEMORY", "1M", 1);
	yi_alloc_fail_countdown = 1;
	rc = yi_pprof_parse(&p, b.data, b.len, "many.pb");
	yi_alloc_fail_countdown = 0;
	is_int(rc, YING_ELIMIT, "100000 samples (~12 MB decoded), YING_MAX_MEMORY=1M: ELIMIT, nothing allocated");
	is_str(ying_last_error(), "many.pb: the decoded profile would need more than 1.00 MiB "
	    "(the decode budget; raise it with YING_MAX_MEMORY=SIZE)", "... naming the budget");
	/* the allocator's own count, behind the pre-count: a count that says
	 * the input was already walked lets unpack start, and its allocator
	 * stops it at the budget */
	{
		yi_pprof_count c;
		memset(&c, 0, sizeof(c));
		c.off = b.len;
		c.ntypes = c.nsample = c.first_values = 1;
		is_int(yi_pprof_parse_counted(&p, b.data, b.len, "many.pb", &c), YING_ELIMIT,
		    "pre-count skipped: protobuf-c's allocator refuses past the budget");
		has_str(ying_last_error(), "many.pb: the decoded profile would need more than 1.00 MiB",
		    "... with the same message");
		ok(p == NULL, "... no profile");
	}
	setenv("YING_MAX_MEMORY", "64M", 1);
	is_int(yi_pprof_parse(&p, b.data, b.len, "many.pb"), 0, "... YING_MAX_MEMORY=64M: it loads");
	is_int(p ? ying_profile_nstacks(p) : 0, 100000, "... all 100000 samples");
	ying_profile_free(p);
	p = NULL;
	setenv("YING_MAX_MEMORY", "lots", 1);
	is_int(yi_pprof_parse(&p, b.data, b.len, "many.pb"), YING_EINVAL, "YING_MAX_MEMORY=lots: EINVAL");
	has_str(ying_last_error(), "YING_MAX_MEMORY=lots: not a memory budget", "... it says why");
	unsetenv("YING_MAX_MEMORY");
	is_int(yi_pprof_parse(&p, b.data, b.len, "many.pb"), 0, "unset: the 1 GiB default, it loads");
	ying_profile_free(p);
	p = NULL;
	ying_membuf_release(&b);

	/* gzip in memory (HTTP bodies, URLs): the inflated copy may take half */
	{
		static const unsigned char head[] = { 0x32, 0x00, 0x32, 0x80, 0x80, 0x80, 0x02 };
		static char zeros[65536];
		ying_write_membuf(&big, head, sizeof(head));     /* a 4 MiB string */
		for (int i = 0; i < 64; i++)
			ying_write_membuf(&big, zeros, sizeof(zeros));
	}
	rc = yi_gzout_new(&g, ying_write_membuf, &gz, 6);
	if (rc == 0)
		rc = yi_gzout_write(g, big.data, big.len);
	if (rc == 0)
		rc = yi_gzout_finish(g);
	is_int(rc, 0, "a 4 MiB pprof string, gzipped");
	setenv("YING_MAX_MEMORY", "4M", 1);
	is_int(ying_profile_read_mem(&p, gz.data, gz.len, "body.pb.gz"), YING_ELIMIT,
	    "read_mem, YING_MAX_MEMORY=4M: ELIMIT while inflating");
	is_str(ying_last_error(), "body.pb.gz: the decompressed input would need more than "
	    "4.00 MiB (the decode budget; raise it with YING_MAX_MEMORY=SIZE)", "... naming the budget");
	setenv("YING_MAX_MEMORY", "16M", 1);
	rc = ying_profile_read_mem(&p, gz.data, gz.len, "body.pb.gz");
	ok(rc != YING_ELIMIT, "... YING_MAX_MEMORY=16M: inflated (then judged as pprof)");
	ying_profile_free(p);
	unsetenv("YING_MAX_MEMORY");
	ying_membuf_release(&gz);
	ying_membuf_release(&big);
}

int
main(void)
{
	test_roundtrip("heap_exact.heap");
	test_roundtrip("heap_accum.heap");
	test_oom();
	test_handmade();
	test_budget();
	return tap_done();
}

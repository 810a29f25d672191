/*
 * test_limit.c: the memory limit the growth runner watches (live_limit.c)
 * on hand-written /proc/self and cgroup trees under the test's temporary
 * directory: cgroup v2 (memory.max, memory.current) and v1
 * (memory/memory.limit_in_bytes, memory.usage_in_bytes), at the cgroup's
 * path and at the mount's root (a container), "max" and v1's huge value
 * as no limit, the smaller of the cgroup's and a given one, the resident
 * set from statm; the fractions' firing and re-arming; malformed files;
 * the fraction lists (fe_settings.c) and the names of limit and high-water
 * report sets (base_reportname.c).
 */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "ying-live.h"
#include "internal.h"
#include "live.h"
#include "fe.h"

static char root[1024];

static void
put(const char *rel, const char *text)
{
	char path[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static const char *
at(const char *rel)
{
	static char buf[2][2048];
	static int k;

	k = !k;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

#define MIB ((uint64_t)1 << 20)
static const double fr[] = { 80, 90 };

static void
test_v2(void)
{
	yi_limit l;
	uint64_t u = 0;

	put("p2/self/cgroup", "0::/svc.slice/app\n");
	put("p2/self/statm", "5000 2560 100 10 0 900 0\n");
	put("cg2/svc.slice/app/memory.max", "104857600\n");
	put("cg2/svc.slice/app/memory.current", "52428800\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p2"), at("cg2")), 0, "v2: found");
	is_int(l.source, YI_LIMIT_CGROUP, "... the cgroup's limit");
	is_int(l.cg_version, 2, "... version 2");
	is_u64(l.limit, 100 * MIB, "... memory.max");
	is_int(yi_limit_usage(&l, &u), 0, "... usage read");
	is_u64(u, 50 * MIB, "... memory.current");
	is_str(yi_limit_source_name(&l), "the cgroup's memory.max", "... named");

	is_int(yi_limit_init(&l, 200 * MIB, fr, 2, at("p2"), at("cg2")), 0,
	    "v2 and a larger given limit");
	is_int(l.source, YI_LIMIT_CGROUP, "... the cgroup's (smaller) counts");
	is_int(yi_limit_init(&l, 64 * MIB, fr, 2, at("p2"), at("cg2")), 0,
	    "v2 and a smaller given limit");
	is_int(l.source, YI_LIMIT_GIVEN, "... the given one counts");
	is_u64(l.limit, 64 * MIB, "... 64 MiB");
	is_int(yi_limit_usage(&l, &u), 0, "... usage read");
	is_u64(u, 2560 * (uint64_t)sysconf(_SC_PAGESIZE), "... the resident set (statm)");
	is_str(yi_limit_usage_name(&l), "the process's resident set", "... named");

	put("cg2/svc.slice/app/memory.max", "max\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p2"), at("cg2")), 0, "v2 max: read");
	is_int(l.source, YI_LIMIT_NONE, "... no limit known");
	is_int(yi_limit_step(&l, UINT64_MAX), -1, "... nothing fires");
	is_int(yi_limit_init(&l, 64 * MIB, fr, 2, at("p2"), at("cg2")), 0,
	    "v2 max and a given limit");
	is_int(l.source, YI_LIMIT_GIVEN, "... the given one");

	/* a container: its cgroup is the mount's root */
	put("p3/self/cgroup", "0::/kubepods/pod1/c1\n");
	put("p3/self/statm", "1 1 0 0 0 0 0\n");
	put("cg3/memory.max", "268435456\n");
	put("cg3/memory.current", "1048576\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p3"), at("cg3")), 0, "v2 at the root: found");
	is_u64(l.limit, 256 * MIB, "... the root's memory.max");

	/* malformed: an error naming the file, and no limit */
	put("cg3/memory.max", "lots\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p3"), at("cg3")), YING_EPARSE,
	    "a malformed memory.max: YING_EPARSE");
	has_str(ying_last_error(), "memory.max", "... naming it");
	is_int(l.source, YI_LIMIT_NONE, "... no limit");
	put("cg3/memory.max", "268435456\n");
	put("cg3/memory.current", "12x\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p3"), at("cg3")), YING_EPARSE,
	    "a malformed memory.current: YING_EPARSE");
	is_int(l.source, YI_LIMIT_NONE, "... no limit");
}

static void
test_v1(void)
{
	yi_limit l;
	uint64_t u = 0;

	put("p1/self/cgroup", "12:pids:/\n4:memory:/app\n1:name=systemd:/\n0::/\n");
	put("p1/self/statm", "5000 2560 100 10 0 900 0\n");
	put("cg1/memory/app/memory.limit_in_bytes", "67108864\n");
	put("cg1/memory/app/memory.usage_in_bytes", "33554432\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p1"), at("cg1")), 0, "v1: found");
	is_int(l.cg_version, 1, "... version 1 (the memory controller first)");
	is_u64(l.limit, 64 * MIB, "... memory.limit_in_bytes");
	is_int(yi_limit_usage(&l, &u), 0, "... usage read");
	is_u64(u, 32 * MIB, "... memory.usage_in_bytes");
	is_str(yi_limit_source_name(&l), "the cgroup's memory.limit_in_bytes", "... named");
	put("cg1/memory/app/memory.limit_in_bytes", "9223372036854771712\n");
	is_int(yi_limit_init(&l, 0, fr, 2, at("p1"), at("cg1")), 0, "v1 unlimited: read");
	is_int(l.source, YI_LIMIT_NONE, "... v1's huge value is no limit");
	/* no cgroup file at all, no statm: nothing, no error */
	is_int(yi_limit_init(&l, 0, fr, 2, at("none"), at("cg1")), 0, "no /proc/self/cgroup");
	is_int(l.source, YI_LIMIT_NONE, "... no limit");
	is_int(yi_limit_init(&l, 64 * MIB, fr, 2, at("none"), at("cg1")), YING_EIO,
	    "a given limit without a readable statm: YING_EIO");
	is_int(l.source, YI_LIMIT_NONE, "... no limit to watch");
}

static void
test_step(void)
{
	yi_limit l;
	const double three[] = { 50, 80, 90 };

	put("p4/self/cgroup", "0::/\n");
	put("p4/self/statm", "1 1 0 0 0 0 0\n");
	put("cg4/memory.max", "1000000\n");
	put("cg4/memory.current", "0\n");
	is_int(yi_limit_init(&l, 0, three, 3, at("p4"), at("cg4")), 0, "three fractions");
	is_int(yi_limit_step(&l, 400000), -1, "40 %: nothing");
	is_int(yi_limit_step(&l, 500000), 0, "50 %: the first fires");
	is_int(yi_limit_step(&l, 600000), -1, "60 %: nothing again");
	is_int(yi_limit_step(&l, 460000), -1, "46 %: not re-armed (5 points below)");
	is_int(yi_limit_step(&l, 500000), -1, "50 % again: nothing");
	is_int(yi_limit_step(&l, 440000), -1, "44 %: re-armed");
	is_int(yi_limit_step(&l, 950000), 2, "95 %: one crossing, the highest (90 %)");
	is_int(yi_limit_step(&l, 960000), -1, "96 %: nothing");
	is_int(yi_limit_step(&l, 820000), -1, "82 %: 90 re-armed, 80 not");
	is_int(yi_limit_step(&l, 900000), 2, "90 %: fires again");
	is_int(yi_limit_step(&l, 0), -1, "0 %: all re-armed");
	is_int(yi_limit_step(&l, 810000), 1, "81 %: 80 % (50 % with it, quietly)");
	is_int(yi_limit_step(&l, 810000), -1, "... once");

	const double bad[] = { 0 }, big[] = { 101 };
	is_int(yi_limit_init(&l, 0, bad, 1, at("p4"), at("cg4")), YING_EINVAL, "0 %: refused");
	is_int(yi_limit_init(&l, 0, big, 1, at("p4"), at("cg4")), YING_EINVAL, "101 %: refused");
	is_int(yi_limit_init(&l, 0, three, 0, at("p4"), at("cg4")), 0, "no fractions");
	is_int(yi_limit_step(&l, 2000000), -1, "... nothing ever fires");
}

static void
test_lists(void)
{
	double v[YFE_PERCENTS_MAX];
	unsigned n = 99;
	char why[256];

	is_int(yfe_percents_parse("80,90", v, &n, why, sizeof(why)), 0, "80,90");
	ok(n == 2 && v[0] == 80 && v[1] == 90, "... two");
	is_int(yfe_percents_parse("none", v, &n, why, sizeof(why)), 0, "none");
	is_int((int)n, 0, "... zero");
	is_int(yfe_percents_parse("100", v, &n, why, sizeof(why)), 0, "100");
	const char *const bad[] = { "", "80,", ",80", "0", "101", "80,80", "8O", "85.5",
	    "-5", "1,2,3,4,5,6,7,8,9", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "\"%s\" refused", bad[i]);
		is_int(yfe_percents_parse(bad[i], v, &n, why, sizeof(why)), -1, what);
	}
}

static void
test_names(void)
{
	char buf[128];
	size_t bl = 0;

	is_int(yi_report_base_name_tag(buf, sizeof(buf), 1700000000, 60.0 * MIB, true,
	    "limit90"), 0, "a limit90 name");
	has_str(buf, ".limit90.60MiB", "... the tag before the size");
	ok(yi_report_parse_name("ying.20260909T164505-0400.limit90.60MiB.report", &bl) &&
	    bl == strlen("ying.20260909T164505-0400.limit90.60MiB"), "... parsed back");
	ok(yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.hwm.152MiB.heap", NULL),
	    "an .hwm. name parses");
	ok(yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.limit100.152MiB.pb.gz", NULL),
	    "limit100 parses");
	ok(!yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.other.152MiB.report", NULL),
	    "an unknown tag does not");
	ok(!yi_report_parse_name("ying.2026-09-09T16:45:05-04:00.limit.152MiB.report", NULL),
	    "limit without digits does not");
	ok(!yi_report_parse_name("ying.hwm.152MiB.report", NULL), "a tag without a time does not");
	is_int(yi_report_base_name_tag(buf, sizeof(buf), 1700000000, MIB, false, "oops"),
	    YING_EINVAL, "an unknown tag is refused");
}

/* time to the limit: the usage's trend (yi_limit_record, yi_limit_eta_get) */
static void
test_eta(void)
{
	yi_limit l;
	yi_limit_eta e;
	char txt[256];
	uint64_t u = 0;
	double t;

	memset(&l, 0, sizeof(l));
	l.source = YI_LIMIT_GIVEN;
	l.limit = (uint64_t)1 << 30;            /* 1 GiB */
	yi_limit_eta_get(&l, &e);
	ok(!e.known && !isfinite(e.eta), "no history: no trend");
	yi_limit_eta_text(&e, txt, sizeof(txt));
	is_str(txt, "", "... and no text");
	/* 1 MiB/s from 512 MiB, a point every 0.2 s: one kept a second */
	for (int i = 0; i <= 20; i++) {
		u = ((uint64_t)512 << 20) + (uint64_t)(i * 0.2 * (1 << 20));
		yi_limit_record(&l, 100.0 + i * 0.2, u);
	}
	is_int(l.hist_n, 5, "points at least 1 s apart: 5 of 21 kept");
	yi_limit_eta_get(&l, &e);
	ok(e.known, "5 points over 4 s: a trend");
	is_near(e.rate, 1 << 20, 1, "... of 1 MiB/s");
	is_near(e.eta, 508.0, 0.5, "... 508 MiB left: reached in 508 s");
	ok(e.eta_lo <= e.eta && e.eta <= e.eta_hi, "... inside its interval");
	yi_limit_eta_text(&e, txt, sizeof(txt));
	has_str(txt, "in 8 min 28 s", "text: when");
	has_str(txt, "at +1.00 MiB/s", "text: the rate");
	/* noisy: +-4 MiB around 2 MiB/s, 60 s */
	memset(&l.hist_n, 0, sizeof(l.hist_n));
	l.hist_head = 0;
	for (int i = 0; i < 60; i++) {
		double noise = (i % 3 - 1) * 4.0 * (1 << 20);
		t = 200.0 + i;
		yi_limit_record(&l, t, (uint64_t)(((double)((uint64_t)256 << 20)) + i * 2.0 * (1 << 20) + noise));
	}
	yi_limit_eta_get(&l, &e);
	ok(e.known && e.rate_lo < 2.0 * (1 << 20) && 2.0 * (1 << 20) < e.rate_hi,
	    "noisy usage: the interval holds the true 2 MiB/s");
	ok(e.rate_hi - e.rate_lo > 0, "... and is not empty");
	/* flat: never reached, no upper time */
	memset(&l.hist_n, 0, sizeof(l.hist_n));
	l.hist_head = 0;
	for (int i = 0; i < 30; i++)
		yi_limit_record(&l, 400.0 + i, (uint64_t)(100 << 20) + (uint64_t)((i % 2) * 4096));
	yi_limit_eta_get(&l, &e);
	ok(e.known && !isfinite(e.eta_hi), "flat usage: no time to the limit at the slowest rate");
	yi_limit_eta_text(&e, txt, sizeof(txt));
	ok(strstr(txt, "in ") == txt || strstr(txt, "not at the current trend") == txt,
	    "... the text says when or that it is not reached");
	/* the ring keeps the last YI_LIMIT_HIST points */
	memset(&l.hist_n, 0, sizeof(l.hist_n));
	l.hist_head = 0;
	for (int i = 0; i < YI_LIMIT_HIST + 50; i++)
		yi_limit_record(&l, 1000.0 + i, (uint64_t)i << 20);
	is_int(l.hist_n, YI_LIMIT_HIST, "the ring holds YI_LIMIT_HIST points");
	is_near(l.hist_t[l.hist_head], 1050.0, 0, "... the oldest ones gone");
	/* over the limit already */
	l.limit = (uint64_t)10 << 20;
	yi_limit_eta_get(&l, &e);
	is_near(e.eta, 0, 0, "usage over the limit: reached now (0 s)");
}

int
main(void)
{
	snprintf(root, sizeof(root), "%s/ying-limit-XXXXXX", tap_tmpdir());
	if (mkdtemp(root) == NULL) {
		printf("Bail out! mkdtemp %s\n", root);
		return 1;
	}
	test_v2();
	test_v1();
	test_step();
	test_lists();
	test_names();
	test_eta();
	return tap_done();
}

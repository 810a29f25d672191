/*
 * test_api.c: the API rules of include/ying.h and ying-live.h that hold
 * across families: writers never symbolize (an unsymbolized dump is
 * written as addresses and stays unsymbolized), ying_profile_symbolize
 * runs once and refuses other options instead of ignoring them, every
 * versioned option struct has an _init() equal to its _INIT macro and
 * refuses other versions naming the struct, and the info accessors fill a
 * struct through an out-parameter given first.
 */
#include <stdlib.h>
#include <string.h>

#include <ying-live.h>

#include "tap.h"

static char *
folded(const ying_profile *p, int *rc)
{
	ying_membuf b = YING_MEMBUF_INIT;

	*rc = ying_profile_write_folded(p, NULL, ying_write_membuf, &b);
	return b.data ? b.data : strdup("");
}

static ying_profile *
fixture(void)
{
	ying_profile *p = NULL;

	if (ying_profile_read_file(&p, tap_data("flame_fake.heap")) != 0)
		printf("# %s\n", ying_last_error());
	return p;
}

/* Writers only read: the dump stays unsymbolized, its frames addresses,
 * and the options of the explicit step that follows are the ones used. */
static void
test_writers_never_symbolize(void)
{
	ying_symbolize_opts drop = YING_SYMBOLIZE_OPTS_INIT, other;
	ying_profile *a = fixture(), *b = fixture();
	char *sa, *raw, *sb;
	int rc;

	if (a == NULL || b == NULL) {
		ok(0, "fixture read");
		return;
	}
	is_int(ying_profile_symbolize(a, NULL, NULL), 0, "defaults: symbolized");
	sa = folded(a, &rc);
	is_int(rc, 0, "folded of the symbolized dump");
	has_str(sa, "flamefix+0x", "symbolized frames name the module");

	raw = folded(b, &rc);
	is_int(rc, 0, "folded of an unsymbolized dump: not refused");
	ok(strstr(raw, "flamefix") == NULL && strstr(raw, "[unknown]") != NULL,
	    "... its frames are unnamed (the writer did not symbolize)");

	drop.drop_frames = "^flamefix\\+0x1[03]ff$";
	is_int(ying_profile_symbolize(b, NULL, &drop), 0,
	    "symbolize after a write, with drop_frames: applied");
	sb = folded(b, &rc);
	ok(rc == 0 && strcmp(sa, sb) != 0 && strstr(sb, "0x10ff") == NULL,
	    "drop_frames took effect (a write before it changed nothing)");

	is_int(ying_profile_symbolize(b, NULL, &drop), 0, "same options again: no-op");
	is_int(ying_profile_symbolize(b, NULL, NULL), YING_EINVAL,
	    "other options (defaults) on a symbolized profile: EINVAL, not ignored");
	has_str(ying_last_error(), "already symbolized with other options",
	    "... saying why");
	ying_symbolize_opts_init(&other);
	other.keep_allocator_frames = 1;
	is_int(ying_profile_symbolize(a, NULL, &other), YING_EINVAL,
	    "keep_allocator_frames after defaults: EINVAL");
	other.keep_allocator_frames = 0;
	other.warnings = stderr;
	is_int(ying_profile_symbolize(a, NULL, &other), 0,
	    "warnings is not an option that changes the result: no-op");
	free(sa);
	free(raw);
	free(sb);
	ying_profile_free(a);
	ying_profile_free(b);
}

#define SAME_AS_MACRO(T, M) do { \
	T m_ = M, f_; \
	memset(&f_, 0xa5, sizeof(f_)); \
	T##_init(&f_); \
	ok(memcmp(&m_, &f_, sizeof(m_)) == 0 || \
	    (m_.version == f_.version && sizeof(m_) == sizeof(f_)), \
	    #T "_init equals " #M); \
	is_int(f_.version, m_.version, #T "_init: current version"); \
	T##_init(NULL); \
} while (0)

static void
test_opts_init(void)
{
	SAME_AS_MACRO(ying_symbolize_opts, YING_SYMBOLIZE_OPTS_INIT);
	SAME_AS_MACRO(ying_top_opts, YING_TOP_OPTS_INIT);
	SAME_AS_MACRO(ying_pprof_opts, YING_PPROF_OPTS_INIT);
	SAME_AS_MACRO(ying_folded_opts, YING_FOLDED_OPTS_INIT);
	SAME_AS_MACRO(ying_svg_opts, YING_SVG_OPTS_INIT);
	SAME_AS_MACRO(ying_dot_opts, YING_DOT_OPTS_INIT);
	SAME_AS_MACRO(ying_diff_build_opts, YING_DIFF_BUILD_OPTS_INIT);
	SAME_AS_MACRO(ying_diff_opts, YING_DIFF_OPTS_INIT);
	SAME_AS_MACRO(ying_jeprof_opts, YING_JEPROF_OPTS_INIT);
	SAME_AS_MACRO(ying_merge_opts, YING_MERGE_OPTS_INIT);
	SAME_AS_MACRO(ying_lifetimes_opts, YING_LIFETIMES_OPTS_INIT);
	SAME_AS_MACRO(ying_sql_import_opts, YING_SQL_IMPORT_OPTS_INIT);
	SAME_AS_MACRO(ying_http_opts, YING_HTTP_OPTS_INIT);
	SAME_AS_MACRO(ying_runner_opts, YING_RUNNER_OPTS_INIT);
	SAME_AS_MACRO(ying_fetch_opts, YING_FETCH_OPTS_INIT);
	SAME_AS_MACRO(ying_pyroscope_opts, YING_PYROSCOPE_OPTS_INIT);
	SAME_AS_MACRO(ying_giant_capture_opts, YING_GIANT_CAPTURE_OPTS_INIT);
}

/* No older layout is accepted: one version per struct, named when wrong. */
static void
test_versions(void)
{
	ying_profile *p = fixture();
	ying_symbolize_opts so;
	ying_http_opts ho;
	ying_pyroscope_opts po;

	ying_symbolize_opts_init(&so);
	so.version = 1;
	is_int(ying_profile_symbolize(p, NULL, &so), YING_EINVAL,
	    "ying_symbolize_opts version 1 (the old layout): EINVAL");
	has_str(ying_last_error(), "ying_symbolize_opts", "... naming the struct");
	ying_http_opts_init(&ho);
	ho.version = 1;
	is_int(ying_http_check(&ho), YING_EINVAL, "ying_http_opts version 1: EINVAL");
	ying_pyroscope_opts_init(&po);
	po.url = "http://127.0.0.1:1";
	po.version = 0;
	is_int(ying_pyroscope_check(&po), YING_EINVAL, "ying_pyroscope_opts version 0: EINVAL");
	ying_profile_free(p);
}

static void
test_info_get(void)
{
	static const char listing[] = "{\"format\":\"ying-giant/1\",\"pid\":7,"
	    "\"program\":\"/x\",\"time_ns\":5,\"threshold\":64,\"allocations\":3,"
	    "\"dropped\":1,\"since\":0,\"sites\":[],\"records\":[],\"maps\":\"\"}";
	ying_giant *g = NULL;
	ying_giant_info gi;

	is_int(ying_giant_read_mem(&g, listing, sizeof(listing) - 1, "g.json"), 0,
	    "a listing");
	memset(&gi, 0xa5, sizeof(gi));
	is_int(ying_giant_info_get(&gi, g), 0, "ying_giant_info_get(&info, g)");
	ok(gi.threshold == 64 && gi.pid == 7 && gi.time_ns == 5 && gi.allocations == 3 &&
	    gi.dropped == 1, "... fills every field");
	is_int(ying_giant_info_get(&gi, NULL), YING_EINVAL, "NULL listing: EINVAL");
	ok(gi.threshold == 0 && gi.pid == 0, "... and out is zeroed");
	ying_giant_free(g);
}

int
main(void)
{
	test_writers_never_symbolize();
	test_opts_init();
	test_versions();
	test_info_get();
	return tap_done();
}

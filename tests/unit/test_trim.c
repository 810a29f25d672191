/*
 * test_trim.c: the built-in list of well-known allocator wrappers
 * (zmalloc, _PyObject_Malloc, g_malloc, CRYPTO_malloc, xmalloc, ...) and
 * how yi_trim() applies it: only leading frames are trimmed, never a
 * wrapper in the middle of a stack, and keep_allocator_frames keeps them.
 *
 * The profile is built by hand with named frames (as if symbolized), so the
 * test controls exactly where each wrapper sits.
 */
#include <regex.h>

#include "internal.h"
#include "tap.h"

static void
test_names(void)
{
	static const char *yes[] = {
		"zmalloc", "zmalloc_usable", "zcalloc", "zrealloc_usable",
		"ztrymalloc_usable", "ztrymalloc_usable_internal", "zstrdup",
		"zmalloc_usable.constprop.0",
		"_PyObject_Malloc", "_PyObject_Calloc", "PyObject_Malloc",
		"PyMem_RawMalloc", "_PyMem_RawMalloc", "_PyObject_GC_New",
		"g_malloc", "g_malloc0", "g_realloc", "g_try_malloc", "g_slice_alloc",
		"g_strdup", "CRYPTO_malloc", "CRYPTO_zalloc", "CRYPTO_strdup",
		"xmalloc", "xcalloc", "xrealloc", "xstrdup", "sqlite3Malloc",
		"ngx_alloc", "ngx_palloc", "strdup",
		"alloc::raw_vec::finish_grow",
		"<alloc::raw_vec::RawVec<T,A>>::grow_one",
		/* vec![x; n]'s layers above RawVec, legacy and v0 forms */
		"alloc::vec::from_elem", "alloc::vec::Vec<T,A>::with_capacity_in",
		"<alloc::vec::Vec<u8>>::with_capacity_in",
		"<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem",
	};
	static const char *no[] = {
		"", "main", "zmalloc_get_rss", "zmalloc_used_memory", "my_zmalloc",
		"createStringObject", "sdsnewlen", "_PyBytes_FromSize", "PyList_New",
		"g_malloc_helper_of_mine", "CRYPTO_free_ex_data", "xmalloc_wrapper",
		"malloc", "0x0000000000001234",
		/* the standard libraries' layers: test_layers.c */
		"<app::X as app::SpecFromElem>::from_elem", "app::Vec<T>::with_capacity_in",
	};
	size_t i;
	char what[256];

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(what, sizeof(what), "wrapper name: %s", yes[i]);
		ok(yi_is_wrapper_name(yes[i]), what);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "not a wrapper name: '%s'", no[i]);
		ok(!yi_is_wrapper_name(no[i]), what);
	}
	ok(!yi_is_wrapper_name(NULL), "NULL is not a wrapper name");
}

/* Add a stack of named frames, leaf first: "a;b;c". */
static void
add(ying_profile *p, const char *spec)
{
	char buf[512], *save = NULL, *tok;
	uint32_t locs[64];
	size_t n = 0;
	yi_counts raw = { 1, 4096, 0, 0 };

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok && n < 64; tok = strtok_r(NULL, ";", &save)) {
		uint32_t loc, func;
		yi_line ln;
		uint64_t pc = 0x1000 + 16 * yi_hash_bytes(tok, strlen(tok), 1) % 0x100000;

		yi_profile_loc(p, pc, n == 0, &loc);
		if (p->locs.v[loc].nlines == 0) {
			yi_profile_func(p, tok, tok, "x.c", &func);
			ln.func = func;
			ln.line = 1;
			yi_profile_set_lines(p, loc, &ln, 1);
		}
		locs[n++] = loc;
	}
	yi_profile_add_stack(p, locs, n, &raw, NULL);
}

static void
test_trim(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p;

	if (yi_profile_new(&p, "trim") != 0) {
		printf("Bail out! yi_profile_new\n");
		exit(1);
	}
	p->period = 1;
	p->symbolized = true;
	add(p, "je_malloc;malloc;ztrymalloc_usable_internal;zmalloc;createObject;main");
	add(p, "malloc;g_malloc;parse;g_malloc0;main");
	add(p, "malloc;zmalloc;zstrdup");
	add(p, "leaf_alloc;xmalloc;main");

	is_int(yi_trim(p, &o), 0, "yi_trim");
	is_int(p->stacks.v[0].skip, 4, "malloc, then redis's wrappers trimmed: createObject leads");
	is_int(p->stacks.v[1].skip, 2, "g_malloc trimmed, g_malloc0 under parse kept");
	is_int(p->stacks.v[2].skip, 2, "only wrappers: the outermost (zstrdup) is kept");
	is_int(p->stacks.v[3].skip, 0, "xmalloc in the middle of a stack is not trimmed");

	o.keep_allocator_frames = 1;
	is_int(yi_trim(p, &o), 0, "yi_trim keep_allocator_frames");
	is_int(p->stacks.v[0].skip, 0, "keep_allocator_frames keeps jemalloc and zmalloc");
	is_int(p->stacks.v[1].skip, 0, "keep_allocator_frames keeps g_malloc");

	o.keep_allocator_frames = 0;
	o.drop_frames = "^parse$";
	is_int(yi_trim(p, &o), 0, "yi_trim drop_frames");
	is_int(p->stacks.v[1].skip, 4, "--drop-frames parse: trimming goes on through g_malloc0 to main");
	o.drop_frames = "(unclosed";
	is_int(yi_trim(p, &o), YING_EINVAL, "a bad --drop-frames regex is EINVAL");
	ok(strncmp(ying_last_error(), "bad --drop_frames regex '(unclosed': ", 37) == 0,
	    "its detail names the option and the regex");
	ying_profile_free(p);
}

/* pprof's drop_frames for --unsymbolized profiles is built from the same
 * lists: every name the predicates accept matches it (anchored, as pprof
 * does), other names do not.  ERE and RE2 agree on this subset. */
static void
test_regex(void)
{
	static const char *const yes[] = {
		"malloc", "malloc.part.0", "operator new(unsigned long)", "_Znwm", "je_malloc",
		"imalloc_body", "zmalloc", "zstrdup.constprop.0", "g_malloc0", "CRYPTO_malloc",
		"<alloc::raw_vec::RawVec<T,A>>::grow_one", "__rust_alloc", "strdup",
		"__rustc::__rust_alloc", "<alloc::alloc::Global>::alloc_impl",
		"<app::Je as core::alloc::global::GlobalAlloc>::alloc",
		"<app::Je as core::alloc::global::GlobalAlloc>::realloc",
		"alloc::vec::from_elem", "<alloc::vec::Vec<u8>>::with_capacity_in",
		"alloc::vec::Vec<T,A>::with_capacity_in",
		"<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem",
	};
	static const char *const no[] = {
		"main", "my_malloc", "mallocate", "parse", "createObject", "xmalloc_wrapper",
		"<app::Je as core::alloc::global::GlobalAlloc>::alloc_helper",
		"<app::Je as core::fmt::Debug>::fmt",
	};
	char *src = NULL, *anchored, what[128];
	regex_t re;
	size_t i;
	int rc;

	is_int(yi_allocator_regex(&src), 0, "yi_allocator_regex");
	anchored = malloc(strlen(src) + 5);
	sprintf(anchored, "^(%s)$", src);
	rc = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
	is_int(rc, 0, "the drop_frames regex compiles");
	for (i = 0; rc == 0 && i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(what, sizeof(what), "%s is an allocator frame", yes[i]);
		ok(yi_is_allocator_name(yes[i]) || yi_is_wrapper_name(yes[i]), what);
		snprintf(what, sizeof(what), "drop_frames matches %s", yes[i]);
		ok(regexec(&re, yes[i], 0, NULL, 0) == 0, what);
	}
	for (i = 0; rc == 0 && i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "%s is not", no[i]);
		ok(!yi_is_allocator_name(no[i]) && !yi_is_wrapper_name(no[i]), what);
		snprintf(what, sizeof(what), "drop_frames does not match %s", no[i]);
		ok(regexec(&re, no[i], 0, NULL, 0) != 0, what);
	}
	if (rc == 0)
		regfree(&re);
	free(anchored);
	yi_free(src);
}

int
main(void)
{
	test_names();
	test_trim();
	test_regex();
	return tap_done();
}

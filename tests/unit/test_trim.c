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
#include "drop_regex.h"

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
		/* the families of well-known C programs and libraries */
		"palloc", "palloc0", "repalloc", "pstrdup", "MemoryContextAllocZeroAligned",
		"AllocSetAlloc", "AllocSetContextCreateInternal", "GenerationAlloc",
		"SlabAlloc", "copyObjectImpl", "list_copy_deep",
		"ngx_create_temp_buf", "ngx_create_pool", "ngx_pnalloc", "ngx_pcalloc",
		"MemPoolMalloc::allocate()", "MemPoolMalloc::allocate",
		"MemPoolChunked::allocate() [clone .cold]", "memAllocate(mem_type)",
		"Mem::AllocatorProxy::alloc()", "mem_node::operator new(unsigned long)",
		"apr_palloc", "apr_pcalloc", "g_slice_alloc0", "xmlStrndup",
		"CRYPTO_secure_zalloc", "sqlite3DbStrDup", "pcache1Alloc",
		"google::protobuf::Arena::AllocateAligned(unsigned long)",
		"app::Msg* google::protobuf::Arena::CreateMaybeMessage<app::Msg>(google::protobuf::Arena*)",
		"gpr_malloc", "grpc_core::Arena::Alloc(unsigned long)", "_talloc_zero",
		"talloc_strdup", "event_mm_malloc_", "zcalloc", "deflateInit2_",
		"luaM_malloc_", "ruby_xmalloc", "objspace_xmalloc0.isra.0", "_emalloc",
		"_emalloc_56", "zend_mm_alloc_pages",
		"llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 4096ul, 4096ul, 128ul>::Allocate(unsigned long, llvm::Align)",
		"llvm::safe_malloc(unsigned long)",
		"void* llvm::SmallVectorBase<unsigned int>::mallocForGrow(void*, unsigned long, unsigned long, unsigned long&)",
	};
	static const char *no[] = {
		"", "main", "zmalloc_get_rss", "zmalloc_used_memory", "my_zmalloc",
		"createStringObject", "sdsnewlen", "_PyBytes_FromSize", "PyList_New",
		"g_malloc_helper_of_mine", "CRYPTO_free_ex_data", "xmalloc_wrapper",
		"malloc", "0x0000000000001234",
		/* the standard libraries' layers: test_layers.c */
		"<app::X as app::SpecFromElem>::from_elem", "app::Vec<T>::with_capacity_in",
		/* near misses: callers of the families, and generic names */
		"alloc", "new_node", "CompleteCachedPlan", "CreateCachedPlan", "pallocate",
		"ngx_http_alloc_large_header_buffer", "ngx_create_temp_buf_mine",
		"mem_hdr::nodeToRecieve(long)", "MemPoolMalloc::clean(long)",
		"MemPoolMalloc::allocate_more", "my::operator newer(int)",
		"app::Msg::operator==(app::Msg const&)",
		"void app::f(google::protobuf::Arena::CreateMaybeMessage<int>)",
		"app::google::protobuf::Arena::Create<int>(int)", "sqlite3PcacheFetch",
		"apr_pool_destroy", "talloc_free", "llvm::StringRef::str() const",
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

/* Add a stack of named frames, leaf first: "a;b;c".  A frame "lib+0x1f"
 * is one without a symbol (no file, as the symbolizer names it); a frame
 * "name@M" lies in mapping M (0 without one), so "@1" and "@2" are two
 * modules. */
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
		char *at = strchr(tok, '@');
		int map = at ? atoi(at + 1) : 0;

		if (at)
			*at = '\0';
		yi_profile_loc(p, pc, n == 0, &loc);
		p->locs.v[loc].mapping = map - 1;
		if (p->locs.v[loc].nlines == 0) {
			yi_profile_func(p, tok, tok, strstr(tok, "+0x") ? "" : "x.c", &func);
			ln.func = func;
			ln.line = 1;
			yi_profile_set_lines(p, loc, &ln, 1);
		}
		locs[n++] = loc;
	}
	yi_profile_add_stack(p, locs, n, &raw, NULL);
}

/* Unnamed frames go with the wrapper of their own module that calls them,
 * only while they lead the stack. */
static void
test_unnamed(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p;
	static const char *const paths[] = { "/usr/bin/postgres", "/usr/lib/libx.so", "/usr/bin/postgres" };
	size_t i;

	if (yi_profile_new(&p, "trim") != 0) {
		printf("Bail out! yi_profile_new\n");
		exit(1);
	}
	p->period = 1;
	p->symbolized = true;
	for (i = 0; i < 3; i++) {
		yi_mapping m = { 0 };
		m.start = 0x100000 * (i + 1);
		m.end = m.start + 0x1000;
		m.exec = 1;
		yi_strtab_intern(&p->strs, paths[i], strlen(paths[i]), &m.path);
		yi_vec_grow(&p->maps, 1);
		p->maps.v[p->maps.n++] = m;
	}
	/* 0: AllocSetAlloc (static) under palloc, both in postgres */
	add(p, "malloc;postgres+0x5c7792@1;palloc@1;CompleteCachedPlan@1;main@1");
	/* 1: two unnamed frames, then a wrapper called by more unnamed ones */
	add(p, "malloc;postgres+0x35a846@1;postgres+0x35a966@1;copyObjectImpl@1;"
	    "postgres+0x3573f6@1;list_copy_deep@1;CreateCachedPlan@1");
	/* 2: the wrapper lies in another module: the unnamed frame stays */
	add(p, "malloc;postgres+0x5c7792@1;sqlite3Malloc@2;main@1");
	/* 3: followed by a function that is no wrapper: stays */
	add(p, "malloc;postgres+0x5aec11@1;hash_search_with_hash_value@1;main@1");
	/* 4: unnamed callers of a wrapper (after it) are not its insides */
	add(p, "malloc;palloc@1;postgres+0x1234@1;palloc0@1;postgres+0x99@1;main@1");
	/* 5: the same file mapped twice (two segments) is one module */
	add(p, "malloc;postgres+0x5c7792@3;palloc@1;exec_simple_query@1");
	/* 6: unnamed frames up to the end: nothing but them, kept */
	add(p, "malloc;postgres+0x10@1;postgres+0x20@1");

	is_int(yi_trim(p, &o), 0, "yi_trim with unnamed frames");
	is_int(p->stacks.v[0].skip, 3, "static AllocSetAlloc goes with palloc: CompleteCachedPlan leads");
	is_int(p->stacks.v[1].skip, 6, "runs of unnamed frames between copy wrappers: CreateCachedPlan leads");
	is_int(p->stacks.v[2].skip, 1, "a wrapper of another module does not take the unnamed frame");
	is_int(p->stacks.v[3].skip, 1, "an unnamed frame under an ordinary function leads");
	is_int(p->stacks.v[4].skip, 4, "an unnamed frame between two wrappers goes, the outer one's unnamed caller leads");
	is_int(p->stacks.v[5].skip, 3, "two mappings of one file are one module");
	is_int(p->stacks.v[6].skip, 1, "unnamed frames not followed by a wrapper stay");
	o.keep_allocator_frames = 1;
	is_int(yi_trim(p, &o), 0, "yi_trim keep_allocator_frames");
	is_int(p->stacks.v[0].skip, 0, "keep_allocator_frames keeps the wrapper's unnamed insides");
	ying_profile_free(p);
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
		"palloc", "MemoryContextAllocZeroAligned", "ngx_create_temp_buf",
		"MemPoolMalloc::allocate()", "mem_node::operator new(unsigned long)",
		"app::Msg* google::protobuf::Arena::CreateMaybeMessage<app::Msg>(google::protobuf::Arena*)",
		"llvm::safe_malloc(unsigned long)", "_emalloc_56",
	};
	static const char *const no[] = {
		"main", "my_malloc", "mallocate", "parse", "createObject", "xmalloc_wrapper",
		"<app::Je as core::alloc::global::GlobalAlloc>::alloc_helper",
		"<app::Je as core::fmt::Debug>::fmt",
		"CompleteCachedPlan", "mem_hdr::nodeToRecieve(long)", "pallocate",
		"my::operator newer(int)",
	};
	char what[128];
	regex_t re;
	size_t i;
	int rc = drop_regex(&re);

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
}

int
main(void)
{
	test_names();
	test_trim();
	test_unnamed();
	test_regex();
	return tap_done();
}

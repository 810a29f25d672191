/*
 * sym_trim.c: allocator-frame trimming.
 *
 * A jemalloc backtrace starts inside jemalloc itself (prof_backtrace,
 * imalloc, malloc, operator new, ...).  Reports want the first frame to be
 * the program's own code, so the leading frames of every stack (from the
 * leaf) are skipped while they belong to the allocator: frames inside a
 * jemalloc mapping (whatever the library file is called), frames whose real
 * (outermost) function is an allocator entry point or a jemalloc internal
 * by name (so a statically linked jemalloc, e.g. Rust's _rjem_je_*, is
 * recognised too), frames of well-known allocator wrappers of other
 * projects (redis's zmalloc family, CPython's PyObject_Malloc family, glib's
 * g_malloc, OpenSSL's CRYPTO_malloc, xmalloc, sqlite, nginx: the list below,
 * documented in ying(1)), the standard libraries' allocation layers
 * (sym_layers.c: libstdc++, libc++, Rust's alloc), the caller's own wrappers
 * (opts->frames, sym_userframes.c: trimmed like the built-in ones) and
 * frames matching the user's --drop_frames regex.  keep_allocator_frames
 * keeps the allocator and wrapper frames.
 * Trimming stops at the first other frame, so a wrapper in the middle of a
 * stack is never removed; a stack made only of allocator
 * frames keeps its outermost one.  Nothing is deleted: locations get an
 * `allocator` mark and stacks a `skip` count, which yi_stack_expand honours.
 */
#include <regex.h>
#include <stdlib.h>

#include "sym.h"

static bool
has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Allocator entry points and jemalloc internals, compared with the name up
 * to its argument list or clone suffix ("malloc", "imalloc_body.part.0"). */
static const char *const exact_names[] = {
	"malloc", "calloc", "realloc", "free", "cfree", "reallocarray",
	"posix_memalign", "aligned_alloc", "memalign", "valloc", "pvalloc",
	"mallocx", "rallocx", "xallocx", "sallocx", "dallocx", "sdallocx",
	"nallocx", "malloc_usable_size", "malloc_default",
	"__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_free",
	"__libc_memalign", "__libc_valloc", "__libc_pvalloc",
	"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc", "__rust_dealloc",
	/* the same shims as Rust >= 1.88 names them (v0, demangled) */
	"__rustc::__rust_alloc", "__rustc::__rust_alloc_zeroed",
	"__rustc::__rust_realloc", "__rustc::__rust_dealloc",
	"do_rallocx", "prof_alloc_prep",
};

static const char *const prefixes[] = {
	/* C++ operators, mangled and demangled (every overload) */
	"_Znw", "_Zna", "_Zdl", "_Zda", "operator new", "operator delete",
	/* jemalloc's own names: prefixed builds and internals */
	"je_", "_rjem_", "prof_backtrace", "imalloc", "ialloc", "iralloc",
	/* jemalloc's arena allocation paths, not every "arena_": programs
	 * name their own arenas so (arena_grab, arena_alloc, arena_new) */
	"arena_malloc", "arena_palloc", "arena_ralloc", "arena_dalloc",
	"arena_choose", "arena_cache_bin_fill", "arena_prof_", "arena_slab_",
	"arena_bin_", "tcache_",
	/* Rust allocator shims and jemallocator crates */
	"__rdl_", "__rg_", "alloc::alloc::",
	"<alloc::alloc::Global as core::alloc::",
	"<std::alloc::System as core::alloc::",
	/* inherent methods as v0 names print them (legacy: alloc::alloc::Global::) */
	"<alloc::alloc::Global>::", "<std::alloc::System>::",
	"<tikv_jemallocator::", "tikv_jemallocator::", "tikv_jemalloc_sys::",
	"<jemallocator::", "jemallocator::", "jemalloc_sys::",
};

/* The methods of any Rust global allocator (a GlobalAlloc impl, e.g.
 * "<myapp::Je as core::alloc::global::GlobalAlloc>::alloc"), which Rust
 * inlines into __rust_alloc and so into the function that allocates. */
static const char global_alloc[] = " as core::alloc::global::GlobalAlloc>::";
static const char *const global_alloc_methods[] = {
	"alloc", "alloc_zeroed", "realloc", "dealloc",
};

static bool
is_global_alloc_method(const char *name)
{
	const char *g = name[0] == '<' ? strstr(name, global_alloc) : NULL;
	size_t i, len;

	if (g == NULL)
		return false;
	g += sizeof(global_alloc) - 1;
	len = strcspn(g, "(.");
	for (i = 0; i < sizeof(global_alloc_methods) / sizeof(global_alloc_methods[0]); i++)
		if (strlen(global_alloc_methods[i]) == len &&
		    memcmp(g, global_alloc_methods[i], len) == 0)
			return true;
	return false;
}

bool
yi_is_allocator_name(const char *name)
{
	size_t i, len;

	if (name == NULL || name[0] == '\0')
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (has_prefix(name, prefixes[i]))
			return true;
	if (is_global_alloc_method(name))
		return true;
	len = strcspn(name, "(.");
	if (len == 0)
		return false;
	for (i = 0; i < sizeof(exact_names) / sizeof(exact_names[0]); i++)
		if (strlen(exact_names[i]) == len && memcmp(name, exact_names[i], len) == 0)
			return true;
	return false;
}

/*
 * Well-known allocation wrappers of other projects: functions whose only job
 * is to call malloc (and count, or abort on failure), so the interesting
 * frame is their caller.  Exact names, compared like exact_names above
 * (clone suffixes such as ".constprop.0" match too).  Keep this list in sync
 * with docs/ying.1 (ALLOCATOR FRAMES) and README.md.
 */
static const char *const wrapper_names[] = {
	/* redis (zmalloc.c) */
	"zmalloc", "zmalloc_usable", "zcalloc", "zcalloc_num", "zcalloc_usable",
	"zrealloc", "zrealloc_usable", "ztrymalloc", "ztrymalloc_usable",
	"ztrycalloc", "ztrycalloc_usable", "ztryrealloc", "ztryrealloc_usable",
	"ztrymalloc_usable_internal", "ztrycalloc_usable_internal",
	"ztryrealloc_usable_internal", "zmalloc_no_tcache", "zstrdup",
	/* CPython (obmalloc.c, gcmodule.c) */
	"PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc",
	"PyMem_RawMalloc", "PyMem_RawCalloc", "PyMem_RawRealloc",
	"_PyMem_RawMalloc", "_PyMem_RawCalloc", "_PyMem_RawRealloc",
	"PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc",
	"_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc",
	"_PyMem_DebugRawAlloc", "_PyMem_DebugRawMalloc", "_PyMem_DebugRawCalloc",
	"_PyMem_DebugRawRealloc", "_PyMem_DebugMalloc", "_PyMem_DebugCalloc",
	"_PyMem_DebugRealloc", "pymalloc_alloc",
	"_PyObject_GC_Malloc", "_PyObject_GC_Calloc", "_PyObject_GC_New",
	"_PyObject_GC_NewVar", "_PyObject_New", "_PyObject_NewVar",
	/* glib */
	"g_malloc", "g_malloc0", "g_realloc", "g_malloc_n", "g_malloc0_n",
	"g_realloc_n", "g_try_malloc", "g_try_malloc0", "g_try_realloc",
	"g_try_malloc_n", "g_try_malloc0_n", "g_try_realloc_n",
	"g_slice_alloc", "g_slice_alloc0", "g_slice_copy",
	"g_strdup", "g_strndup", "g_memdup", "g_memdup2",
	/* OpenSSL */
	"CRYPTO_malloc", "CRYPTO_zalloc", "CRYPTO_realloc", "CRYPTO_clear_realloc",
	"CRYPTO_strdup", "CRYPTO_strndup", "CRYPTO_memdup",
	/* xmalloc (gnulib, git, binutils, ...) */
	"xmalloc", "xcalloc", "xrealloc", "xzalloc", "xnmalloc", "xreallocarray",
	"xstrdup", "xstrndup", "xmemdup",
	/* sqlite */
	"sqlite3Malloc", "sqlite3MallocZero", "sqlite3_malloc", "sqlite3_malloc64",
	"sqlite3Realloc", "sqlite3_realloc", "sqlite3_realloc64", "sqlite3MemMalloc",
	"sqlite3MemRealloc", "mallocWithAlarm", "sqlite3DbMallocRaw",
	"sqlite3DbMallocRawNN", "sqlite3DbMallocZero", "sqlite3DbRealloc",
	/* nginx */
	"ngx_alloc", "ngx_calloc", "ngx_memalign", "ngx_palloc", "ngx_pnalloc",
	"ngx_pcalloc", "ngx_pmemalign", "ngx_palloc_small", "ngx_palloc_large",
	"ngx_palloc_block",
	/* libc string duplication */
	"strdup", "strndup", "__strdup", "__strndup", "wcsdup",
};

bool
yi_is_wrapper_name(const char *name)
{
	size_t i, len;

	if (name == NULL || name[0] == '\0')
		return false;
	if (yi_is_layer_name(name))     /* the standard libraries' (sym_layers.c) */
		return true;
	len = strcspn(name, "(.");
	if (len == 0)
		return false;
	for (i = 0; i < sizeof(wrapper_names) / sizeof(wrapper_names[0]); i++)
		if (strlen(wrapper_names[i]) == len && memcmp(name, wrapper_names[i], len) == 0)
			return true;
	return false;
}

/* Append the names of `v` to `o` as RE2 alternatives, metacharacters escaped. */
static void
put_alternatives(yi_out *o, const char *const *v, size_t n, bool *first)
{
	size_t i;
	const char *c;

	for (i = 0; i < n; i++) {
		if (!*first)
			yi_out_putc(o, '|');
		*first = false;
		for (c = v[i]; *c; c++) {
			if (strchr("\\.+*?()|[]{}^$", *c))
				yi_out_putc(o, '\\');
			yi_out_putc(o, *c);
		}
	}
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The lists above as one regular expression (RE2 syntax, as pprof anchors
 * it: ^(...)$) for a pprof profile's drop_frames, written when ying could
 * not trim itself (--unsymbolized): exact names, optionally followed by an
 * argument list or clone suffix, or any name starting with a prefix.
 * pprof drops the outermost matching frame and all its callees, which for
 * these names (allocators and wrappers that only call them) is the
 * allocator part of the stack, as trimming does.
 */
int
yi_allocator_regex(char **out)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	yi_out *o;
	bool first = true;
	int rc;

	*out = NULL;
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("building the allocator regex");
	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_puts(o, "(");
	put_alternatives(o, exact_names, NELEM(exact_names), &first);
	put_alternatives(o, wrapper_names, NELEM(wrapper_names), &first);
	yi_out_puts(o, ")([(.].*)?|(");
	first = true;
	put_alternatives(o, prefixes, NELEM(prefixes), &first);
	yi_out_puts(o, ").*|<.* as core::alloc::global::GlobalAlloc>::(");
	first = true;
	put_alternatives(o, global_alloc_methods, NELEM(global_alloc_methods), &first);
	yi_out_puts(o, ")([(.].*)?");
	yi_layers_regex(o);
	rc = yi_out_finish(o);
	yi_free(o);
	if (rc != 0) {
		ying_membuf_release(&mb);
		return rc;
	}
	*out = mb.data;
	return 0;
}

/* Is location li an allocator frame?  `drop` may be NULL. */
static bool
loc_is_allocator(const ying_profile *p, const yi_loc *l, const regex_t *drop, bool *by_regex)
{
	uint32_t k;

	*by_regex = false;
	if (drop != NULL) {
		for (k = 0; k < l->nlines; k++) {
			const yi_func *fn = &p->funcs.v[p->lines.v[l->line_off + k].func];
			if (regexec(drop, yi_profile_str(p, fn->name), 0, NULL, 0) == 0) {
				*by_regex = true;
				return true;
			}
		}
	}
	if (l->mapping >= 0 && (size_t)l->mapping < p->maps.n &&
	    p->maps.v[l->mapping].is_jemalloc)
		return true;
	if (l->nlines > 0) {
		const yi_func *fn = &p->funcs.v[p->lines.v[l->line_off + l->nlines - 1].func];
		return yi_is_allocator_name(yi_profile_str(p, fn->name)) ||
		    yi_is_allocator_name(yi_profile_str(p, fn->sysname));
	}
	return false;
}

/* Is location l (its real, outermost function) a well-known wrapper or one
 * of the caller's (uf, may be NULL)? */
static bool
loc_is_wrapper(const ying_profile *p, const yi_loc *l, const yi_uframes *uf)
{
	const yi_func *fn;

	if (l->nlines == 0)
		return false;
	fn = &p->funcs.v[p->lines.v[l->line_off + l->nlines - 1].func];
	return yi_is_wrapper_name(yi_profile_str(p, fn->name)) ||
	    yi_is_wrapper_name(yi_profile_str(p, fn->sysname)) ||
	    yi_uframes_match_func(uf, p, p->lines.v[l->line_off + l->nlines - 1].func);
}

/* The layer kind (yi_layer_kind_id) of line k of location l, 0 for none. */
static uint32_t
loc_layer(const ying_profile *p, const yi_loc *l, uint32_t k)
{
	const yi_func *fn = &p->funcs.v[p->lines.v[l->line_off + k].func];

	return yi_layer_kind_id(yi_layer_kind(yi_profile_str(p, fn->name)));
}

/*
 * Leading inline lines of location l that are allocator or wrapper
 * functions inlined into its real function (Rust inlines the GlobalAlloc
 * impl, __rust_alloc, alloc::alloc::alloc and RawVec's allocation into the
 * function that allocates): skipped when l leads a stack, as if they were
 * frames of their own.  The real (outermost) function always stays.
 */
static uint8_t
inline_skip(const ying_profile *p, const yi_loc *l, const yi_uframes *uf)
{
	uint32_t k = 0;

	while (k + 1 < l->nlines && k < UINT8_MAX) {
		const yi_func *fn = &p->funcs.v[p->lines.v[l->line_off + k].func];
		const char *n = yi_profile_str(p, fn->name), *sn = yi_profile_str(p, fn->sysname);
		if (!yi_is_allocator_name(n) && !yi_is_allocator_name(sn) &&
		    !yi_is_wrapper_name(n) && !yi_is_wrapper_name(sn) &&
		    !yi_uframes_match_func(uf, p, p->lines.v[l->line_off + k].func))
			break;
		k++;
	}
	return (uint8_t)k;
}

/* Is layer kind id one that says more than "allocator" or "core"? */
static bool
telling(uint32_t id)
{
	/* no cache: profiles are trimmed on several threads at once */
	return id != 0 && id != yi_layer_kind_id("allocator") &&
	    id != yi_layer_kind_id("core");
}

/* The note of a trimmed stack: the outermost standard-library layer (the
 * one the program called: push_back, Arc::new) that says more than
 * "allocator" or "core", else the outermost layer, 0 for none.  `kind` holds per location the layer of its real
 * function, `ikind` that of its inline lines trimmed (inline_layer). */
static uint32_t
stack_layer(const ying_profile *p, const yi_stack *st, const uint32_t *kind,
    const uint32_t *ikind)
{
	const uint32_t *fr = p->frames.v + st->frame_off;
	uint32_t j, best = 0, id;

	for (j = st->skip + 1; j-- > 0;) {
		id = j < st->skip ? kind[fr[j]] : ikind[fr[j]];
		if (telling(id))
			return id;
		if (best == 0)
			best = id;
	}
	return best;
}

/* The same for the first n inline lines of location l (innermost first). */
static uint32_t
inline_layer(const ying_profile *p, const yi_loc *l, uint32_t n)
{
	uint32_t k, best = 0, id;

	for (k = n; k-- > 0;) {
		id = loc_layer(p, l, k);
		if (telling(id))
			return id;
		if (best == 0)
			best = id;
	}
	return best;
}

/* Trim with the user's --drop_frames already compiled (`drop` may be NULL). */
int
yi_trim_with(ying_profile *p, const ying_symbolize_opts *opts, const regex_t *drop)
{
	uint8_t *dropped = NULL;     /* per location: 1 matched the user's regex,
	                                2 a well-known or the caller's wrapper */
	yi_uframes *uf;              /* opts->frames */
	uint32_t *kind = NULL;       /* per location: the layers (stack_layer) */
	size_t i;
	int rc;

	if ((rc = yi_uframes_parse(&uf, opts->frames)) != 0)
		return rc;
	if (p->locs.n && ((dropped = yi_calloc(p->locs.n, 1)) == NULL ||
	    (kind = yi_calloc(2 * p->locs.n, sizeof(*kind))) == NULL)) {
		yi_free(dropped);
		yi_uframes_free(uf);
		return yi_oom("trimming allocator frames");
	}
	for (i = 0; i < p->locs.n; i++) {
		bool by_regex;
		yi_loc *l = &p->locs.v[i];
		l->allocator = loc_is_allocator(p, l, drop, &by_regex);
		dropped[i] = by_regex ? 1 : !l->allocator && loc_is_wrapper(p, l, uf) ? 2 : 0;
		l->lskip = l->allocator || dropped[i] || opts->keep_allocator_frames ? 0 :
		    inline_skip(p, l, uf);
		if (dropped[i] == 2)
			kind[i] = loc_layer(p, l, l->nlines - 1);
		if (l->lskip > 0)
			kind[p->locs.n + i] = inline_layer(p, l, l->lskip);
	}
	for (i = 0; i < p->stacks.n; i++) {
		yi_stack *st = &p->stacks.v[i];
		/* a stack without frames in a profile without any: no
		 * pointer arithmetic on a NULL vector (clang UBSan) */
		const uint32_t *fr = st->nframes ? p->frames.v + st->frame_off : NULL;
		uint32_t k = 0;

		/* keep_allocator_frames keeps the allocator's and the
		 * wrappers' frames; frames the user asked to drop by regex
		 * still go.  Wrappers are not marked `allocator` (that mark
		 * also names frames "malloc" for jeprof's symbol lookups). */
		while (k < st->nframes && (opts->keep_allocator_frames ?
		    dropped[fr[k]] == 1 : p->locs.v[fr[k]].allocator || dropped[fr[k]] == 2))
			k++;
		if (k == st->nframes && k > 0)
			k--;        /* nothing but the allocator: keep the outermost */
		st->skip = k;
		st->layer = k < st->nframes && !opts->keep_allocator_frames ?
		    stack_layer(p, st, kind, kind + p->locs.n) : 0;
	}
	yi_free(dropped);
	yi_uframes_free(uf);
	yi_free(kind);
	return 0;
}

int
yi_trim_compile(const ying_symbolize_opts *opts, regex_t *re, bool *have)
{
	int rc;

	yi_uframes *uf;

	*have = false;
	/* a bad entry of opts->frames fails here too, before any work */
	if ((rc = yi_uframes_parse(&uf, opts->frames)) != 0)
		return rc;
	yi_uframes_free(uf);
	if (opts->drop_frames == NULL || opts->drop_frames[0] == '\0')
		return 0;
	if ((rc = yi_regex_compile(re, opts->drop_frames, "--drop_frames")) != 0)
		return rc;
	*have = true;
	return 0;
}

int
yi_trim(ying_profile *p, const ying_symbolize_opts *opts)
{
	regex_t drop;
	bool have;
	int rc;

	if ((rc = yi_trim_compile(opts, &drop, &have)) != 0)
		return rc;
	rc = yi_trim_with(p, opts, have ? &drop : NULL);
	if (have)
		regfree(&drop);
	return rc;
}

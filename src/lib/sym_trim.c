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
 * g_malloc, OpenSSL's CRYPTO_malloc, xmalloc, SQLite, nginx, PostgreSQL,
 * squid, ...: the families of sym_wrap.c, documented in ying(1)) with the
 * frames without a symbol they call in their own module, the standard
 * libraries' allocation layers (sym_layers.c: libstdc++, libc++, Rust's
 * alloc), the caller's own wrappers (opts->frames, sym_userframes.c: trimmed
 * like the built-in ones) and frames matching the user's --drop_frames
 * regex.  keep_allocator_frames keeps the allocator and wrapper frames.
 * Trimming stops at the first other frame, so a wrapper in the middle of a
 * stack is never removed; a stack made only of allocator
 * frames keeps its outermost one.  Nothing is deleted: locations get an
 * `allocator` mark and stacks a `skip` count, which yi_stack_expand honours.
 */
#include <regex.h>
#include <stdlib.h>

#include "sym.h"

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
		if (yi_has_prefix(name, prefixes[i]))
			return true;
	if (is_global_alloc_method(name))
		return true;
	len = strcspn(name, "(.");
	if (len == 0)
		return false;
	for (i = 0; i < sizeof(exact_names) / sizeof(exact_names[0]); i++)
		if (exact_names[i][0] == name[0] && strncmp(name, exact_names[i], len) == 0 &&
		    exact_names[i][len] == '\0')
			return true;
	return false;
}


bool
yi_is_wrapper_name(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return false;
	/* the standard libraries' layers (sym_layers.c), the other projects'
	 * wrappers (sym_wrap.c) */
	return yi_is_layer_name(name) || yi_is_wrap_family(name);
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
	const char *const *v;
	yi_out *o;
	bool first = true;
	size_t n;
	int rc;

	*out = NULL;
	if ((o = yi_malloc(sizeof(*o))) == NULL)
		return yi_oom("building the allocator regex");
	yi_out_init(o, ying_write_membuf, &mb);
	yi_out_puts(o, "(");
	put_alternatives(o, exact_names, NELEM(exact_names), &first);
	v = yi_wrap_list(YI_WRAP_EXACT, &n);
	put_alternatives(o, v, n, &first);
	yi_out_puts(o, ")([(.].*)?|(");
	first = true;
	put_alternatives(o, prefixes, NELEM(prefixes), &first);
	v = yi_wrap_list(YI_WRAP_PREFIX, &n);
	put_alternatives(o, v, n, &first);
	yi_out_puts(o, ").*|([^(]* )?(");
	first = true;
	v = yi_wrap_list(YI_WRAP_CXX, &n);
	put_alternatives(o, v, n, &first);
	yi_out_puts(o, ").*|.*::operator new(\\[\\])?(\\(.*)?"
	    "|<.* as core::alloc::global::GlobalAlloc>::(");
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
	return id != 0 && !yi_layer_kind_vague(id);
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

/*
 * Is location l a frame without a symbol: the one line the symbolizer gives
 * such a frame, named "module+0xOFFSET" with no file (a static function of
 * a stripped program, or one whose file could not be read)?
 */
static bool
loc_unnamed(const ying_profile *p, const yi_loc *l)
{
	const yi_func *fn;
	const char *n, *x;

	if (l->nlines != 1 || l->mapping < 0 || (size_t)l->mapping >= p->maps.n)
		return false;
	fn = &p->funcs.v[p->lines.v[l->line_off].func];
	if (yi_profile_str(p, fn->file)[0] != '\0')
		return false;
	n = yi_profile_str(p, fn->name);
	if ((x = strstr(n, "+0x")) == NULL || x == n || x[3] == '\0')
		return false;
	for (x += 3; *x; x++)
		if (!strchr("0123456789abcdefABCDEF", *x))
			return false;
	return true;
}

/* Do locations a and b lie in the same file (maybe different segments)? */
static bool
same_module(const ying_profile *p, const yi_loc *a, const yi_loc *b)
{
	const yi_mapping *ma, *mb;

	if (a->mapping < 0 || b->mapping < 0 || (size_t)a->mapping >= p->maps.n ||
	    (size_t)b->mapping >= p->maps.n)
		return false;
	ma = &p->maps.v[a->mapping];
	mb = &p->maps.v[b->mapping];
	if (yi_profile_str(p, ma->path)[0] == '\0')
		return false;   /* anonymous memory (JIT code) is no module */
	return a->mapping == b->mapping || ma->path == mb->path ||
	    strcmp(yi_profile_str(p, ma->path), yi_profile_str(p, mb->path)) == 0;
}

/*
 * Frames without a symbol at fr[k..] directly followed by an allocator or
 * wrapper frame of their own module are that wrapper's insides (a static
 * AllocSetAlloc under palloc, nginx's static pool code under
 * ngx_create_temp_buf, sqlite's mem1.c under sqlite3Malloc): the index of
 * that wrapper frame, or k when fr[k] does not start such a run.
 * `dropped` says which locations have no symbol (3) or are wrappers (2).
 */
static uint32_t
unnamed_run(const ying_profile *p, const uint32_t *fr, uint32_t n, uint32_t k,
    const uint8_t *dropped)
{
	uint32_t j = k;
	const yi_loc *w;

	while (j < n && dropped[fr[j]] == 3 &&
	    (j == k || same_module(p, &p->locs.v[fr[k]], &p->locs.v[fr[j]])))
		j++;
	if (j == k || j == n)
		return k;
	w = &p->locs.v[fr[j]];
	if ((!w->allocator && dropped[fr[j]] != 2) || !same_module(p, &p->locs.v[fr[k]], w))
		return k;
	return j;
}

/* Trim with the user's --drop_frames already compiled (`drop` may be NULL). */
int
yi_trim_with(ying_profile *p, const ying_symbolize_opts *opts, const regex_t *drop)
{
	uint8_t *dropped = NULL;     /* per location: 1 matched the user's regex,
	                                2 a well-known or the caller's wrapper,
	                                3 no symbol */
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
		if (dropped[i] == 0 && !l->allocator && loc_unnamed(p, l))
			dropped[i] = 3;
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
		for (;;) {
			uint32_t j;
			if (k < st->nframes && (opts->keep_allocator_frames ?
			    dropped[fr[k]] == 1 : p->locs.v[fr[k]].allocator ||
			    dropped[fr[k]] == 2))
				k++;
			else if (k < st->nframes && !opts->keep_allocator_frames &&
			    (j = unnamed_run(p, fr, st->nframes, k, dropped)) > k)
				k = j + 1;  /* the run and its wrapper */
			else
				break;
		}
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

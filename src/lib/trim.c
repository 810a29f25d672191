/*
 * trim.c: allocator-frame trimming.
 *
 * A jemalloc backtrace starts inside jemalloc itself (prof_backtrace,
 * imalloc, malloc, operator new, ...).  Reports want the first frame to be
 * the program's own code, so the leading frames of every stack (from the
 * leaf) are skipped while they belong to the allocator: frames inside a
 * jemalloc mapping (whatever the library file is called), frames whose real
 * (outermost) function is an allocator entry point or a jemalloc internal
 * by name (so a statically linked jemalloc, e.g. Rust's _rjem_je_*, is
 * recognised too), and frames matching the user's --drop_frames regex.
 * Trimming stops at the first other frame; a stack made only of allocator
 * frames keeps its outermost one.  Nothing is deleted: locations get an
 * `allocator` mark and stacks a `skip` count, which yi_stack_expand honours.
 */
#include <regex.h>
#include <stdlib.h>

#include "internal.h"

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
	"do_rallocx", "prof_alloc_prep",
};

static const char *const prefixes[] = {
	/* C++ operators, mangled and demangled (every overload) */
	"_Znw", "_Zna", "_Zdl", "_Zda", "operator new", "operator delete",
	/* jemalloc's own names: prefixed builds and internals */
	"je_", "_rjem_", "prof_backtrace", "imalloc", "ialloc", "iralloc",
	"arena_", "tcache_",
	/* Rust allocator shims and jemallocator crates */
	"__rdl_", "__rg_", "alloc::alloc::",
	"<alloc::alloc::Global as core::alloc::",
	"<std::alloc::System as core::alloc::",
	"<tikv_jemallocator::", "tikv_jemallocator::", "tikv_jemalloc_sys::",
	"<jemallocator::", "jemallocator::", "jemalloc_sys::",
};

bool
yi_is_allocator_name(const char *name)
{
	size_t i, len;

	if (name == NULL || name[0] == '\0')
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (has_prefix(name, prefixes[i]))
			return true;
	len = strcspn(name, "(.");
	if (len == 0)
		return false;
	for (i = 0; i < sizeof(exact_names) / sizeof(exact_names[0]); i++)
		if (strlen(exact_names[i]) == len && memcmp(name, exact_names[i], len) == 0)
			return true;
	return false;
}

static int
compile_drop(regex_t *re, const char *src)
{
	char msg[256];
	int r = regcomp(re, src, REG_EXTENDED | REG_NOSUB);

	if (r != 0) {
		regerror(r, re, msg, sizeof(msg));
		return yi_error(YING_EINVAL, "bad --drop_frames regex '%s': %s", src, msg);
	}
	return 0;
}

/* Is location li an allocator frame?  `drop` may be NULL. */
static bool
loc_is_allocator(const ying_profile *p, const yi_loc *l, regex_t *drop, bool *by_regex)
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

int
yi_trim(ying_profile *p, const ying_symbolize_opts *opts)
{
	regex_t drop;
	bool have_drop = false;
	uint8_t *dropped = NULL;     /* per location: matched the user's regex */
	size_t i;
	int rc;

	if (opts->drop_frames && opts->drop_frames[0]) {
		if ((rc = compile_drop(&drop, opts->drop_frames)) != 0)
			return rc;
		have_drop = true;
	}
	if (p->locs.n && (dropped = yi_calloc(p->locs.n, 1)) == NULL) {
		if (have_drop)
			regfree(&drop);
		return yi_oom("trimming allocator frames");
	}
	for (i = 0; i < p->locs.n; i++) {
		bool by_regex;
		yi_loc *l = &p->locs.v[i];
		l->allocator = loc_is_allocator(p, l, have_drop ? &drop : NULL, &by_regex);
		dropped[i] = by_regex;
	}
	for (i = 0; i < p->stacks.n; i++) {
		yi_stack *st = &p->stacks.v[i];
		const uint32_t *fr = &p->frames.v[st->frame_off];
		uint32_t k = 0;

		/* keep_allocator_frames keeps the allocator's frames; frames
		 * the user asked to drop by regex still go. */
		while (k < st->nframes && (opts->keep_allocator_frames ?
		    dropped[fr[k]] : p->locs.v[fr[k]].allocator))
			k++;
		if (k == st->nframes && k > 0)
			k--;        /* nothing but the allocator: keep the outermost */
		st->skip = k;
	}
	yi_free(dropped);
	if (have_drop)
		regfree(&drop);
	return 0;
}

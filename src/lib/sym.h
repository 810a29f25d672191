/*
 * sym.h: what the sym family (sym_*.c) offers the other layers:
 * symbolizing a profile, trimming allocator frames, allocator and wrapper
 * names, the call-instruction check.  The symbolizer's own types are in
 * sym_int.h (private to sym_*.c).
 */
#ifndef YING_SYM_H
#define YING_SYM_H

#include <regex.h>

#include "model.h"

/* ---- short names (sym_short.c) ------------------------------------------ */
/* What yi_name_short keeps of a demangled name: 0 is the short name
 * (no parameters, no template arguments, no return type). */
enum { YI_SHORT_TEMPLATES = 1, YI_SHORT_PARAMS = 2, YI_SHORT_FULL = 4 };
/* Write the short form of name s (keep: YI_SHORT_* flags) into out, which
 * must hold strlen(s) + 1 bytes (the form is never longer); returns its
 * length.  Never fails: a name it cannot parse is copied whole. */
size_t yi_name_short(const char *s, int keep, char *out);
/* What each of n functions prints: full[i] are the strtab ids of their
 * full names in st, show[i] receives the id (interned in st) of the short
 * name, or of the shortest form that tells apart functions whose short
 * names agree and whose full names differ; whole: the full names. */
int yi_names_show(yi_strtab *st, const uint32_t *full, size_t n, bool whole,
    uint32_t *show);
/* Set every function's `show` of p by yi_names_show (p->full_names). */
int yi_profile_names(ying_profile *p);

/* ---- symbolizer (sym_*.c) and allocator trimming (sym_trim.c) ------------ */
int yi_symbolize(ying_profile *p, ying_symbolizer *s,
    const ying_symbolize_opts *opts);
/* Allocator trimming (sym_trim.c), a step the symbolize pass drives:
 * opts->drop_frames compiled into *re (*have false when there is none;
 * regfree it when true), then the leading allocator frames, wrappers and
 * drop_frames matches trimmed from every stack (drop may be NULL).
 * yi_trim does both. */
int yi_trim_compile(const ying_symbolize_opts *opts, regex_t *re, bool *have);
int yi_trim_with(ying_profile *p, const ying_symbolize_opts *opts,
    const regex_t *drop);
int yi_trim(ying_profile *p, const ying_symbolize_opts *opts);
/* true if the function name is an allocator entry point or jemalloc
 * internal (malloc, operator new, je_*, prof_backtrace_impl, ...). */
YI_SHARED bool yi_is_allocator_name(const char *name);
/* Is there a call instruction for `machine` (EM_X86_64, EM_AARCH64) that
 * ends exactly at `end` (a return address)?  end[-avail..-1] are readable.
 * Returns the instruction's length, or 0 (also for other machines). */
size_t yi_call_before(unsigned machine, const unsigned char *end, size_t avail);
/* true if the function name is a well-known allocation wrapper of another
 * project (zmalloc, _PyObject_Malloc, g_malloc, CRYPTO_malloc, xmalloc,
 * palloc, ngx_palloc, MemPoolMalloc::allocate, ...; the lists in sym_wrap.c),
 * trimmed like allocator frames when leading. */
bool yi_is_wrapper_name(const char *name);
/* The caller's own allocator wrappers (sym_userframes.c): the entries of
 * ying_symbolize_opts.frames.  yi_uframes_parse sets *out to NULL when the
 * text has none (NULL, empty, only comments), else to a list freed with
 * yi_uframes_free; a bad entry is YING_EINVAL naming its line.  The match
 * functions take NULL lists (no match). */
typedef struct yi_uframes yi_uframes;
int yi_uframes_parse(yi_uframes **out, const char *text);
void yi_uframes_free(yi_uframes *u);
bool yi_uframes_match(const yi_uframes *u, const char *name);
/* Does the name or symbol name of p's function `func` match? */
bool yi_uframes_match_func(const yi_uframes *u, const ying_profile *p, uint32_t func);
/* The standard libraries' allocation layers (sym_layers.c): the kind of
 * layer the function name is ("vector growth", "map node", "Vec growth",
 * "HashMap growth", "Box", ...: a static string) or NULL when it is none.
 * libstdc++ and libc++ (allocator<T>::allocate, _M_realloc_insert,
 * __split_buffer, __tree::__construct_node, make_shared, ...) and Rust
 * (alloc's RawVec, Vec, String, Box, BTreeMap, Arc, Rc; hashbrown; std's
 * collections), matched by the names' structure.  yi_is_wrapper_name
 * accepts them too. */
const char *yi_layer_kind(const char *name);
bool yi_is_layer_name(const char *name);
/* Kinds as small numbers for yi_stack.layer: 1.. for a kind
 * yi_layer_kind returns, 0 for none; yi_layer_kind_name maps back (NULL
 * for 0), yi_layer_kind_count is one more than the largest. */
uint32_t yi_layer_kind_id(const char *kind);
const char *yi_layer_kind_name(uint32_t id);
uint32_t yi_layer_kind_count(void);
/* Is kind id one that says no more than "allocator" or "core"? */
bool yi_layer_kind_vague(uint32_t id);
/* Append the layers that never call back into the program, as RE2
 * alternatives each preceded by '|', to the drop_frames regex. */
void yi_layers_regex(yi_out *o);
/* Does s start with prefix?  A byte loop, not strncmp(strlen()): the name
 * lists (sym_trim.c, sym_wrap.c) test many prefixes that differ at once. */
static inline bool
yi_has_prefix(const char *s, const char *prefix)
{
	size_t i;

	for (i = 0; prefix[i] != '\0'; i++)
		if (s[i] != prefix[i])
			return false;
	return true;
}

/* The families of sym_wrap.c (the other projects' allocation wrappers),
 * which yi_is_wrapper_name includes: true if `name` is one of them. */
bool yi_is_wrap_family(const char *name);
/* sym_wrap.c's lists, for the pprof regex: exact names (compared up to an
 * argument list or clone suffix), prefixes at the start of a name, C++
 * qualified prefixes (at the start or after a return type).  Static. */
enum { YI_WRAP_EXACT, YI_WRAP_PREFIX, YI_WRAP_CXX };
const char *const *yi_wrap_list(int kind, size_t *n);
/* The names that yi_is_allocator_name and yi_is_wrapper_name accept, as one
 * RE2 regex for pprof's drop_frames.  *out is malloc'd: yi_free it. */
int yi_allocator_regex(char **out);

#endif /* YING_SYM_H */

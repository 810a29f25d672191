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

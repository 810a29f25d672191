/*
 * sym_demangle.c: C++ and Rust symbol names made readable, by GNU
 * libiberty's demanglers (the ones binutils and gdb use), linked statically
 * into libying and not exported.
 *
 * Rust's v0 names (_R...) and legacy names (_ZN...17h<hash>E) go through
 * rust_demangle without DMGL_VERBOSE: no hash, no crate disambiguator
 * ("std::rt::lang_start_internal", "<alloc::vec::Vec<u8>>::push",
 * "leak::main::{closure#0}").  Every other _Z name is C++ (Itanium ABI)
 * and goes through cplus_demangle_v3 with DMGL_PARAMS | DMGL_ANSI, which
 * prints exactly what libstdc++'s __cxa_demangle prints.  The mangled name
 * is kept by the caller as the system name.
 */
#include <libiberty/demangle.h>
#include <stdlib.h>

#include "sym_int.h"

/*
 * Longest name handed to the C++ demangler.  libiberty's Itanium demangler
 * keeps its work arrays on the stack, about 72 bytes per input byte, so a
 * huge name could overflow a thread's stack; real symbols stay far below
 * this, and longer ones are shown mangled.
 */
#define DEMANGLE_MAX_LEN (16u * 1024)

/* Demangled form of a C++ or Rust name: yi_malloc'd, or NULL when the name
 * is not mangled (or cannot be demangled). */
char *
yi_demangle(const char *s)
{
	char *d, *r;

	if (s[0] != '_' || (s[1] != 'Z' && s[1] != 'R') ||
	    strnlen(s, DEMANGLE_MAX_LEN + 1) > DEMANGLE_MAX_LEN)
		return NULL;
	/* legacy Rust names are valid C++ names too: Rust first (it only
	 * accepts names ending in a hash component) */
	d = rust_demangle(s, 0);
	if (d == NULL && s[1] == 'Z')
		d = cplus_demangle_v3(s, DMGL_PARAMS | DMGL_ANSI);
	if (d == NULL)
		return NULL;
	r = yi_strdup(d);
	free(d);        /* allocated by libiberty with malloc */
	return r;
}

/*
 * sym_nodebug.c: part of the symbolizer's test program, compiled WITHOUT
 * -g, so these functions are known only from .symtab.  Their symbols carry
 * legacy-Rust and C++ mangled names (assembler labels) to exercise
 * demangling on the symbol-table path.
 */
#include <stdlib.h>

void *sym_nodebug_calls(size_t n);
void *volatile sym_nodebug_sink;

/* ying_rust::module::make_thing */
void *rust_make(size_t n) __asm__("_ZN9ying_rust6module10make_thing17h0123456789abcdefE");
/* <ying_rust::Thing as core::fmt::Debug>::fmt */
void *rust_fmt(size_t n) __asm__("_ZN53_$LT$ying_rust..Thing$u20$as$u20$core..fmt..Debug$GT$3fmt17hfedcba9876543210E");
/* ying_cxx::Plain::grow(unsigned long) */
void *cxx_grow(size_t n) __asm__("_ZN8ying_cxx5Plain4growEm");

__attribute__((noinline)) void *
rust_make(size_t n)
{
	void *p = malloc(n);
	sym_nodebug_sink = p;
	return p;
}

__attribute__((noinline)) void *
rust_fmt(size_t n)
{
	void *p = rust_make(n);
	sym_nodebug_sink = p;
	return p;
}

__attribute__((noinline)) void *
cxx_grow(size_t n)
{
	void *p = rust_fmt(n);
	sym_nodebug_sink = p;
	return p;
}

__attribute__((noinline)) void *
sym_nodebug_calls(size_t n)
{
	void *p = cxx_grow(n);
	sym_nodebug_sink = p;
	return p;
}

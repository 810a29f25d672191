/*
 * sym_main.c: the symbolizer's test program (compiled -O0 -g).
 *
 * Run under MALLOC_CONF=prof:true,lg_prof_sample:0 it makes a few
 * allocations from known places and writes a heap_v2 dump to argv[1] with
 * mallctl("prof.dump").  tests/unit/test_symbolize.c parses the dump and
 * checks names and lines against the SYM_LINE_* markers in these sources:
 * a plain C leaf (here), an always_inline function inlined at -O2
 * (sym_inline.c), a C++ member function (sym_cxx.cc) and functions known
 * only from the symbol table, with C++ and Rust mangled names
 * (sym_nodebug.c).  With --unlink-self it deletes its own binary (argv[0],
 * a copy) before dumping, as if it had been replaced while running.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

void *sym_inline_outer(size_t n);
void *sym_cxx_make(size_t n);
void *sym_nodebug_calls(size_t n);

static void *keep[64];
static int nkeep;

__attribute__((noinline)) void *
sym_leaf_alloc(size_t n)
{
	void *p = malloc(n); /* SYM_LINE_LEAF */
	if (p != NULL)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void
sym_caller(void)
{
	int i;

	for (i = 0; i < 4; i++)
		keep[nkeep++] = sym_leaf_alloc(100000 + (size_t)i); /* SYM_LINE_CALLER */
}

int
main(int argc, char **argv)
{
	const char *out;
	bool prof = false;
	size_t sz = sizeof(prof);

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--unlink-self") != 0)) {
		fprintf(stderr, "usage: sym_prog DUMP-FILE [--unlink-self]\n");
		return 2;
	}
	/* The dump then lists this binary as "PATH (deleted)". */
	if (argc == 3 && unlink(argv[0]) != 0) {
		perror(argv[0]);
		return 1;
	}
	if (mallctl("opt.prof", &prof, &sz, NULL, 0) != 0 || !prof) {
		fprintf(stderr, "sym_prog: jemalloc profiling is off "
		    "(run with MALLOC_CONF=prof:true)\n");
		return 1;
	}
	sym_caller();
	keep[nkeep++] = sym_inline_outer(200000);
	keep[nkeep++] = sym_cxx_make(300000);
	keep[nkeep++] = sym_nodebug_calls(400000);
	out = argv[1];
	if (mallctl("prof.dump", NULL, NULL, &out, sizeof(out)) != 0) {
		fprintf(stderr, "sym_prog: prof.dump to %s failed\n", out);
		return 1;
	}
	return 0;
}

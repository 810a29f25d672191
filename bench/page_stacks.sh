#!/bin/sh
# page_stacks.sh A B OUT: writes OUT.c, a program whose heap has A x B
# distinct stacks that stay distinct in a flame graph merged by function
# name (bench/page.sh): main -> a_I (A functions) -> b_J (B functions,
# through a table) -> malloc(64), every pair once; then compiles it to OUT.
# The program waits for jemalloc's prof.active (on once ying run's agent is
# up), allocates, prints "ready A*B" and sleeps until killed.
set -eu
a=$1 b=$2 out=$3
awk -v A="$a" -v B="$b" 'BEGIN {
	print "#pragma GCC optimize(\"O0\")"
	print "#include <stdio.h>\n#include <stdlib.h>\n#include <stdbool.h>\n#include <unistd.h>"
	print "#include <jemalloc/jemalloc.h>"
	print "static void **keep; static unsigned long nkeep;"
	for (j = 0; j < B; j++)
		printf "__attribute__((noinline)) static void b_%d(void) { keep[nkeep++] = malloc(64); }\n", j
	printf "static void (*const btab[%d])(void) = {", B
	for (j = 0; j < B; j++) printf "%sb_%d", j ? "," : "", j
	print "};"
	for (i = 0; i < A; i++)
		printf "__attribute__((noinline)) static void a_%d(void) { for (int j = 0; j < %d; j++) btab[j](); }\n", i, B
	printf "static void (*const atab[%d])(void) = {", A
	for (i = 0; i < A; i++) printf "%sa_%d", i ? "," : "", i
	print "};"
	print "int main(void) {"
	print "\tbool on = false; size_t sz = sizeof(on);"
	print "\tfor (int k = 0; k < 200 && (mallctl(\"prof.active\", &on, &sz, NULL, 0) != 0 || !on); k++) usleep(100000);"
	printf "\tkeep = calloc(%d, sizeof(*keep));\n", A * B
	printf "\tfor (int i = 0; i < %d; i++) atab[i]();\n", A
	printf "\tprintf(\"ready %%lu\\n\", nkeep); fflush(stdout);\n"
	print "\tfor (;;) pause();\n}"
}' >"$out.c"
cc -g -O0 -fno-omit-frame-pointer $(pkg-config --cflags jemalloc) -o "$out" "$out.c" $(pkg-config --libs jemalloc)

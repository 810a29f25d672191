/*
 * leak.c: the C library of rustffi (tests/rust/ffi): a "request parser"
 * that keeps about 3 KB of every request it parses and never frees it,
 * through the process's plain malloc (glibc's, unless an unprefixed
 * jemalloc is preloaded), and what the library can say about its own
 * memory: the bytes it leaked, whether its malloc is a jemalloc (an
 * unprefixed mallctl in the process), glibc's mallinfo2.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define FFI_KEEP 3000

struct kept {
	struct kept *next;
	char data[FFI_KEEP - sizeof(struct kept *)];
};

static struct kept *volatile kept_list;
static size_t kept_bytes;

/* Parses one request of id `id`: keeps FFI_KEEP bytes of it (the leak);
 * returns 0, or -1 when malloc failed. */
int
ffi_parse_request(unsigned long id)
{
	struct kept *k = malloc(sizeof(*k));

	if (k == NULL)
		return -1;
	memset(k->data, (int)(id % 251) + 1, sizeof(k->data));
	k->next = kept_list;
	kept_list = k;
	kept_bytes += sizeof(*k);
	return 0;
}

/* The bytes leaked so far (the sizes asked of malloc). */
size_t
ffi_leaked(void)
{
	return kept_bytes;
}

/* 1 when the C side's malloc is an unprefixed jemalloc (preloaded). */
int
ffi_malloc_is_jemalloc(void)
{
	return dlsym(RTLD_DEFAULT, "mallctl") != NULL;
}

/* glibc's mallinfo2: out[0] arena, out[1] hblkhd, out[2] uordblks. */
void
ffi_glibc_info(size_t out[3])
{
	struct mallinfo2 mi = mallinfo2();

	out[0] = mi.arena;
	out[1] = mi.hblkhd;
	out[2] = mi.uordblks;
}

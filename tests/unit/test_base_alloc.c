/*
 * test_base_alloc.c: vectors (base_alloc.c): growth keeps the contents, and
 * a vector of YI_VEC_HUGE bytes or more carries the kernel's transparent
 * huge page advice (the "hg" flag of its mapping in /proc/self/smaps), so
 * that filling it faults 2 MiB pages.  Built twice: test_base_alloc (the
 * C library's malloc: the advice is there) and test_base_alloc_jem
 * (-DWITH_JEMALLOC, linked with jemalloc, whose malloc then serves the
 * process, as in a profiled host: no advice, jemalloc's pages are its own).
 */
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "tap.h"

/* Does the mapping holding address a carry MADV_HUGEPAGE ("hg")?
 * -1: no mapping holds a (or smaps unreadable). */
static int
has_hg(const void *a)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	int r = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ':') != NULL &&
		    line[strspn(line, "0123456789abcdef")] == '-') {
			in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8) == 0) {
			r = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return r;
}

int
main(void)
{
	YI_VEC(uint32_t) big = { 0 }, small = { 0 };
	size_t i, n = (YI_VEC_HUGE / sizeof(uint32_t)) * 2;
	bool good = true;

	for (i = 0; i < n; i++) {
		if (yi_vec_grow(&big, 1) != 0) {
			good = false;
			break;
		}
		big.v[big.n++] = (uint32_t)(i * 2654435761u);
	}
	ok(good, "a vector grows to twice YI_VEC_HUGE");
	for (i = 0; good && i < n; i++)
		good = big.v[i] == (uint32_t)(i * 2654435761u);
	ok(good, "its contents survive every growth");
	ok(big.cap * sizeof(uint32_t) >= YI_VEC_HUGE, "its capacity is past the threshold");
#ifdef WITH_JEMALLOC
	ok(yi_malloc_is_jemalloc(), "jemalloc's malloc is seen (mallctl is defined)");
	is_int(has_hg(big.v + big.n / 2), 0, "under jemalloc: no MADV_HUGEPAGE (smaps 'hg')");
	is_int(has_hg(big.v), 0, "not on its first element");
	is_int(has_hg(big.v + big.n - 1), 0, "nor on its last");
#else
	ok(!yi_malloc_is_jemalloc(), "the C library's malloc (no mallctl)");
	is_int(has_hg(big.v + big.n / 2), 1, "its mapping carries MADV_HUGEPAGE (smaps 'hg')");
	is_int(has_hg(big.v), 1, "from its first element");
	is_int(has_hg(big.v + big.n - 1), 1, "to its last");
#endif
	is_int(yi_vec_grow(&small, 100), 0, "a small vector");
	ok(has_hg(small.v) != -1, "smaps lists its mapping (the helper finds mappings)");
	yi_vec_free(&big);
	yi_vec_free(&small);
	return tap_done();
}

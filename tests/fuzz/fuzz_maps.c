/*
 * fuzz_maps.c: memory-map text as /proc/self/maps has it ("start-end perms
 * offset dev inode path", plus ying's "ying-build-id: <start> <hex>"
 * lines), which ying reads in a dump's MAPPED_LIBRARIES section and in
 * POST /pprof/symbol (the endpoint appends the process's own maps to a
 * generated dump: this target builds the same document around the input).
 * Input: a first line of stack addresses (hex, space separated, at most 64),
 * then the maps text.  The profile is written in every format (the pprof
 * writer assigns addresses to mappings).  Nothing is symbolized: that
 * would open the files the fuzzed maps name.
 */
#include <inttypes.h>
#include <stdio.h>

#include "fuzz.h"

FUZZ_TARGET(maps)
{
	ying_membuf doc = YING_MEMBUF_INIT;
	ying_profile *p = NULL;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t alen = nl ? (size_t)(nl - data) : size, n = 0;
	char *addrs = fuzz_str(data, alen), *a = addrs, *end;
	char line[96];
	int len;

	len = snprintf(line, sizeof(line), "heap_v2/524288\n  t*: 64: 64 [0: 0]\n");
	ying_write_membuf(&doc, line, (size_t)len);
	while (n < 64 && *a) {
		uint64_t v = strtoull(a, &end, 16);
		if (end == a)
			break;
		len = snprintf(line, sizeof(line), "@ 0x%" PRIx64 "\n  t*: 1: %zu [0: 0]\n",
		    v, 4096 * (n + 1));
		ying_write_membuf(&doc, line, (size_t)len);
		a = end;
		n++;
	}
	ying_write_membuf(&doc, "\nMAPPED_LIBRARIES:\n", 19);
	if (nl)
		ying_write_membuf(&doc, nl + 1, size - alen - 1);
	if (yi_heap_parse_mem(&p, doc.data, doc.len, "fuzz maps") == 0) {
		fuzz_write_all(p, size % 4 == 0);
		ying_profile_free(p);
	}
	yi_error_clear();
	ying_membuf_release(&doc);
	free(addrs);
	return 0;
}

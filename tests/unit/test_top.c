/*
 * test_top.c: flat/cumulative arithmetic of the top table, filters,
 * granularities and the JSON contract, on hand-made dumps whose frames have
 * no mapping (so names are the deterministic "0x%016x" addresses, as jeprof prints them).
 */
#include "internal.h"
#include "tap.h"

/*
 * Stacks (leaf first; callers are printed +1 because the parser subtracts 1):
 *   A: 0x1000 <- 0x2001 <- 0x3001        2 objects, 2048 B   (leaf 0x1000)
 *   B: 0x1100 <- 0x2001 <- 0x3001        1 object,  1024 B   (leaf 0x1100)
 *   C: 0x1000 <- 0x1001 <- 0x3001        recursion: 0x1000 appears twice, 4096 B
 */
static const char dump[] =
    "heap_v2/1\n"
    "  t*: 0: 0 [0: 0]\n"
    "@ 0x1000 0x2001 0x3001\n  t*: 2: 2048 [0: 0]\n"
    "@ 0x1100 0x2001 0x3001\n  t*: 1: 1024 [0: 0]\n"
    "@ 0x1000 0x1001 0x3001\n  t*: 1: 4096 [0: 0]\n";

static char *
run(ying_profile *p, ying_top_opts *o, int *rc)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	if (p != NULL)      /* writers never symbolize: the caller's step */
		(void)ying_profile_symbolize(p, NULL, NULL);
	*rc = ying_profile_write_top(p, o, ying_write_membuf, &mb);
	return mb.data;
}

int
main(void)
{
	ying_profile *p;
	ying_top_opts o = YING_TOP_OPTS_INIT;
	char *s;
	int rc;

	rc = ying_profile_read_mem(&p, dump, strlen(dump), "top.heap");
	is_int(rc, 0, "fixture parses");

	o.json = 1;
	s = run(p, &o, &rc);
	is_int(rc, 0, "json top");
	has_str(s, "{\"total\":7168,\"unit\":\"bytes\",\"sample_index\":\"inuse_space\"", "json header");
	/* 0x1000 is the leaf of A and C: flat 2048+4096; cum counts C once */
	has_str(s, "{\"function\":\"0x0000000000001000\",\"full_name\":\"0x0000000000001000\",\"file\":\"\",\"line\":0,\"flat\":6144,\"cum\":6144}", "leaf flat and recursion-deduped cum");
	has_str(s, "{\"function\":\"0x0000000000003000\",\"full_name\":\"0x0000000000003000\",\"file\":\"\",\"line\":0,\"flat\":0,\"cum\":7168}", "root cum = total");
	has_str(s, "{\"function\":\"0x0000000000002000\",\"full_name\":\"0x0000000000002000\",\"file\":\"\",\"line\":0,\"flat\":0,\"cum\":3072}", "middle frame cum");
	free(s);

	o.sample_index = YING_INUSE_OBJECTS;
	s = run(p, &o, &rc);
	has_str(s, "\"total\":4,\"unit\":\"objects\"", "objects index");
	free(s);
	o.sample_index = YING_ALLOC_SPACE;
	s = run(p, &o, &rc);
	is_int(rc, YING_ENODATA, "alloc_space without accum");
	free(s);
	o.sample_index = YING_INUSE_SPACE;

	o.focus = "1100$";
	s = run(p, &o, &rc);
	has_str(s, "\"total\":7168", "focus keeps the unfiltered total");
	has_str(s, "\"filtered_total\":1024", "focus filters stacks");
	free(s);
	o.focus = NULL;
	o.ignore = "1100$";
	s = run(p, &o, &rc);
	has_str(s, "\"filtered_total\":6144", "ignore drops stacks");
	free(s);
	o.ignore = "([";
	s = run(p, &o, &rc);
	is_int(rc, YING_EINVAL, "bad regex is EINVAL");
	has_str(ying_last_error(), "--ignore", "bad regex message names the option");
	free(s);
	o.ignore = NULL;

	o.granularity = YING_BY_STACK;
	s = run(p, &o, &rc);
	has_str(s, "\"flat\":4096,\"cum\":4096,\"frames\":[{\"function\":\"0x0000000000001000\"", "stack rows carry frames");
	free(s);
	o.granularity = YING_BY_FUNCTION;

	o.json = 0;
	o.limit = 2;
	s = run(p, &o, &rc);
	is_int(rc, 0, "text top");
	has_str(s, "Total: 7.00 KiB (7168 bytes) inuse_space in 3 stacks", "text summary");
	has_str(s, "6.00 KiB  85.7%  85.7%", "flat and percentages");
	has_str(s, "more rows", "limit notes the rest");
	free(s);
	ying_profile_free(p);

	/* an accum profile supports alloc_* */
	{
		static const char acc[] = "heap_v2/1\n  t*: 0: 0 [5: 5000]\n"
		    "@ 0x10\n  t*: 0: 0 [5: 5000]\n";
		rc = ying_profile_read_mem(&p, acc, strlen(acc), "acc.heap");
		o.json = 1;
		o.limit = 0;
		o.sample_index = YING_ALLOC_SPACE;
		s = run(p, &o, &rc);
		is_int(rc, 0, "alloc_space with accum");
		has_str(s, "\"total\":5000", "fully freed stack still counts in alloc_space");
		free(s);
		o.sample_index = YING_INUSE_SPACE;
		s = run(p, &o, &rc);
		has_str(s, "\"total\":0", "and is zero in use");
		has_str(s, "\"rows\":[]", "no rows for zero values");
		free(s);
		ying_profile_free(p);
	}
	return tap_done();
}

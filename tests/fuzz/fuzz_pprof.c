/*
 * fuzz_pprof.c: the pprof reader (read_pprof.c) on profile.proto bytes,
 * directly (yi_pprof_parse) and through ying_profile_read_mem, which
 * inflates gzipped input and sniffs the format (so a seed that is a
 * .pb.gz reaches the reader through the gzip decoder).  A parsed profile
 * is written in every format.  Input: the (maybe gzipped) profile.
 */
#include "fuzz.h"

FUZZ_TARGET(pprof)
{
	ying_profile *p = NULL;

	if (!yi_is_gzip(data, size) && yi_pprof_parse(&p, data, size, "fuzz") == 0) {
		fuzz_write_all(p, size % 4 == 0);
		ying_profile_free(p);
		p = NULL;
	}
	yi_error_clear();
	if (ying_profile_read_mem(&p, data, size, "fuzz") == 0) {
		if (yi_is_gzip(data, size))
			fuzz_write_all(p, size % 4 == 0);
		ying_profile_free(p);
	}
	yi_error_clear();
	return 0;
}

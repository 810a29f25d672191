/*
 * giant_read: reads a "ying-giant/1" listing with the public API only
 * (ying_giant_read_file, ying_giant_get, ying_giant_profile) and prints
 * what a consumer such as `ying sql` gets: the header, one line per
 * record, then the call sites' stacks as folded lines (symbolized now,
 * from the listing's maps), so tests/integration/giant.sh can check the
 * round trip.  Exit 1 with ying_last_error() on a bad file.
 *
 *   giant_read FILE
 */
#include <inttypes.h>
#include <stdio.h>

#include "ying-live.h"

int
main(int argc, char **argv)
{
	ying_folded_opts fo = YING_FOLDED_OPTS_INIT;
	ying_giant *g;
	ying_giant_record r;
	ying_giant_info gi;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: giant_read FILE\n");
		return 2;
	}
	if ((rc = ying_giant_read_file(&g, argv[1])) != 0) {
		fprintf(stderr, "giant_read: %s: %s\n", ying_strerror(rc), ying_last_error());
		return 1;
	}
	ying_giant_info_get(&gi, g);
	printf("threshold %" PRIu64 " pid %ld allocations %" PRIu64 " dropped %" PRIu64
	    " records %zu sites %zu\n", gi.threshold, (long)gi.pid, gi.allocations,
	    gi.dropped, ying_giant_count(g),
	    ying_profile_nstacks(ying_giant_profile(g)));
	for (size_t i = 0; i < ying_giant_count(g); i++) {
		ying_giant_get(&r, g, i);
		printf("record %" PRIu64 " size %" PRIu64 " kind %s thread %" PRIu64
		    " site %zu repeats %" PRIu64 " time %" PRId64 "\n", r.seq, r.size,
		    r.kind, r.thread, r.stack, r.repeats, r.time_ns);
	}
	/* writers never symbolize: the explicit step first */
	rc = ying_profile_symbolize(ying_giant_profile(g), NULL, NULL);
	if (rc == 0)
		rc = ying_profile_write_folded(ying_giant_profile(g), &fo, ying_write_file, stdout);
	ying_giant_free(g);
	if (rc != 0) {
		fprintf(stderr, "giant_read: %s\n", ying_last_error());
		return 1;
	}
	return 0;
}

/*
 * fuzz_recent.c: recent-allocation captures (read_json.c, read_recent.c):
 * ying's capture format, jemalloc's prof_recent JSON and its prof log, as
 * `ying lifetimes` and GET /debug/heap/recent's readers take them.  Every
 * record is fetched and the lifetimes are written as text, JSON and SVG to
 * a counting sink.  Nothing is symbolized (that would open the files a
 * fuzzed "maps" names): the profile is marked symbolized and trimmed, so
 * every frame is "[unknown]" and the writers run on the real stacks.
 */
#include "fuzz.h"

FUZZ_TARGET(recent)
{
	ying_recent *r = NULL;
	ying_recent_record rec;
	ying_recent_info in;
	size_t n = 0;

	if (ying_recent_read_mem(&r, data, size, "fuzz recent") == 0) {
		ying_lifetimes_opts o = YING_LIFETIMES_OPTS_INIT;
		ying_recent_info_get(&in, r);
		for (size_t i = 0; i < ying_recent_count(r); i++)
			if (ying_recent_get(&rec, r, i) == 0 && rec.alloc_stack < 0)
				abort();
		r->prof->symbolized = true;
		r->prof->trimmed = true;
		o.stacks = size % 2;
		ying_recent_write_lifetimes(r, &o, fuzz_sink, &n);
		o.json = 1;
		ying_recent_write_lifetimes(r, &o, fuzz_sink, &n);
		ying_recent_write_lifetimes_svg(r, &o, fuzz_sink, &n);
		ying_recent_free(r);
	}
	yi_error_clear();
	return 0;
}

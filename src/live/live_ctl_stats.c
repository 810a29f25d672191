/*
 * live_ctl_stats.c: the allocator's totals (ying_ctl_stats_get): an
 * "epoch" refresh and six stats.* reads, taken as one snapshot under the
 * control layer's stats lock (live_ctl.h), so that the memory history's
 * sample every second never lands in the middle of them.
 */
#include <errno.h>
#include <string.h>

#include "live_ctl.h"

int
ying_ctl_stats_get(ying_ctl_stats *st)
{
	static const char *const names[] = {
		"stats.allocated", "stats.active", "stats.metadata",
		"stats.resident", "stats.mapped", "stats.retained"
	};
	ying_mallctl_fn fn;
	uint64_t epoch = 1;
	size_t v[6];
	int rc, e, i;

	yi_error_clear();
	if (st == NULL)
		return yi_error(YING_EINVAL, "ying_ctl_stats: st is NULL");
	memset(st, 0, sizeof(*st));
	if ((rc = yi_ctl_get(&fn)) != 0)
		return rc;
	/* the refresh and its reads as one snapshot */
	yi_ctl_stats_lock();
	e = fn("epoch", NULL, NULL, &epoch, sizeof(epoch));
	for (i = 0; e == 0 && i < 6; i++)
		if ((rc = yi_ctl_read_num(fn, names[i], &v[i], sizeof(v[i]))) != 0)
			break;
	yi_ctl_stats_unlock();
	if (e != 0)
		return yi_error(YING_ESYS, "mallctl(\"epoch\") failed: %s", strerror(e));
	if (rc == YING_ENOTSUP)
		return yi_error(YING_ENOTSUP, "jemalloc was built without statistics (%s "
		    "is missing; configure --enable-stats)", names[i]);
	if (rc != 0)
		return rc;
	st->allocated = v[0];
	st->active = v[1];
	st->metadata = v[2];
	st->resident = v[3];
	st->mapped = v[4];
	st->retained = v[5];
	return 0;
}

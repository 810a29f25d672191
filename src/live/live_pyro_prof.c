/*
 * live_pyro_prof.c: a profile as the Pyroscope uploader sends it, for the
 * continuous uploader and the one-shot ying_pyroscope_upload alike.
 *
 * A default Grafana Pyroscope refuses a profile of more than 16,000
 * samples (400 samples_limit), and one whose uncompressed size plus its
 * series labels is over 2 MiB can never pass its per-profile ingestion
 * burst (429 for ever).  So the profile is folded to the configured
 * limits first (ying_profile_fold: the least significant stacks are cut
 * near the root and summed under "[ying: folded]", totals stay exact),
 * measured as it will be written: without the numeric "bytes" label (the
 * mean object size changes between profiles, which makes every stack new
 * to a delta computed by matching labels, as Alloy's is; Pyroscope drops
 * numeric labels anyway), with time_nanos in milliseconds and
 * duration_nanos the interval the profile covers.  A profile that does not
 * fit even folded is not written (YING_ELIMIT): the server would refuse it
 * every time, so it is never sent, let alone retried.
 */
#include <time.h>

#include "live_pyro.h"

int64_t
yi_pyro_epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
yi_pyro_pprof(const yi_pyro_cfg *c, const ying_profile *p, int64_t from_ms,
    int64_t until_ms, const char *comment, ying_membuf *out, ying_fold_stats *fst)
{
	ying_pprof_opts po = YING_PPROF_OPTS_INIT;
	ying_fold_opts fo = YING_FOLD_OPTS_INIT;
	yi_pprof_extra ex = { 0, 0, NULL };
	ying_profile *folded = NULL;
	int rc;

	po.no_size_label = 1;
	fo.max_samples = c->max_samples;
	fo.max_bytes = c->max_bytes;
	fo.extra_bytes = yi_pyro_labels_size(c) + (comment ? strlen(comment) + 8 : 0) + 64;
	fo.pprof = &po;
	if ((rc = ying_profile_fold(&folded, p, &fo, fst)) != 0)
		return rc;
	if (until_ms > 0)
		ex.time_nanos = until_ms * 1000000;
	if (from_ms > 0 && until_ms > from_ms)
		ex.duration_nanos = (until_ms - from_ms) * 1000000;
	ex.comment = comment;
	rc = yi_pprof_write_ex(folded ? folded : p, &po, &ex, ying_write_membuf, out);
	ying_profile_free(folded);
	return rc;
}

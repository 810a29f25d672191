/*
 * live_runner.h: private to the growth runner's files (live_runner.c,
 * live_runner_files.c, live_runner_report.c; not installed): the functions
 * one file offers the others.  The runner's internals for the rest of the
 * library and the tests (yi_runner_*) are in live.h.
 */
#ifndef YING_LIVE_RUNNER_H
#define YING_LIVE_RUNNER_H

#include "live.h"

/* ---- live_runner_files.c */
void yi_clean_stale_tmp(const yi_rdir *d);
/* "/usr/bin/redis-server *:6379": the executable and its arguments from
 * /proc/self (malloc'd). */
char *yi_runner_program_label(void);
/* ---- live_runner_report.c */
/* Wait until time() has passed `last`, so two sets never share a name
 * (the report's time); the new time. */
int64_t yi_runner_next_second(int64_t last);

#endif /* YING_LIVE_RUNNER_H */

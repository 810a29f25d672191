/*
 * live_ctl.h: private to the control layer's files (live_ctl.c,
 * live_ctl_dump.c; not installed): the functions one file offers the other.
 */
#ifndef YING_LIVE_CTL_H
#define YING_LIVE_CTL_H

#include <pthread.h>

#include "live.h"

/* Serialises dumps (and prof.reset, which must not run during one). */
extern pthread_mutex_t yi_ctl_dump_lock;

/* ---- live_ctl.c */
int yi_ctl_need_prof(ying_mallctl_fn *out);

#endif /* YING_LIVE_CTL_H */
